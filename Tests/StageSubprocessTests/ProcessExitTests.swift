import Foundation
import Testing
import StageSubprocess

/// Exits of real child processes, seen whether or not Foundation has noticed them.
struct ProcessExitTests {
    @Test("a running child has not exited; killed, it has, within the wait")
    func runningThenTerminated() async throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["30"]
        try child.run()
        #expect(!child.hasExited)
        #expect(await child.waitForExit(timeout: .milliseconds(100)) == false)
        // SIGKILL: a child spawned from a test thread inherits its blocked SIGTERM.
        kill(child.processIdentifier, SIGKILL)
        #expect(await child.waitForExit(timeout: .seconds(10)))
        child.waitUntilExit()  // nothing else holds its socket here: Foundation reaps it
        #expect(child.reapedStatus == SIGKILL)
    }

    @Test("a child whose grandchild keeps Foundation's socket open: exited, though isRunning says otherwise")
    func exitSeenWhileACopyOfTheSocketLivesOn() async throws {
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("exit-test-\(UUID().uuidString)")
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The background sleep inherits every descriptor of the shell, Foundation's socket too.
        child.arguments = ["-c", "sleep 30 & echo $! > \(pidFile.path)"]
        try child.run()
        defer {
            if let text = try? String(contentsOf: pidFile, encoding: .utf8), let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                kill(pid, SIGKILL)
            }
            try? FileManager.default.removeItem(at: pidFile)
        }
        #expect(child.waitForExitBlocking(timeout: .seconds(10)))
        #expect(child.isRunning, "Foundation has not noticed the exit: the grandchild holds its socket")
        #expect(child.reapedStatus == nil)
    }
}
