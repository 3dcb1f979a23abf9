import Foundation

/// For test harnesses: the parent holds our stdin open; when it dies the pipe closes and we exit,
/// so no server outlives the test run that started it.
enum ParentWatch {
    static func exitWhenStdinCloses() {
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 256)
            while read(STDIN_FILENO, &buffer, buffer.count) > 0 {}
            exit(0)
        }
        thread.start()
    }
}
