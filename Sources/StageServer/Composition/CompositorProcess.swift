import Foundation
import StageHLS
import StageSubprocess

/// One `stage-compositor` child: its command line, its stdout read as `HLSChunkStream` chunks
/// (in order, on one stream), its stderr passed to our log. Closing its stdin asks it to finish
/// (it flushes the last part and exits); `kill()` ends it at once.
final class CompositorProcess: Sendable {
    enum Output: Sendable {
        case chunk(HLSChunk)
        /// The stream broke (bad framing) or ended; the process is then killed or gone.
        case closed(reason: String)
    }

    let process: Process
    private let stdin: Pipe
    let output: AsyncStream<Output>

    /// Starts the executable with the arguments; the output stream ends when its stdout does.
    init(executable: URL, arguments: [String], label: String) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        self.process = process
        self.stdin = stdin
        let (stream, continuation) = AsyncStream.makeStream(of: Output.self, bufferingPolicy: .unbounded)
        output = stream
        let reading = stdout.fileHandleForReading
        Thread.detachNewThread {
            var reader = HLSChunkReader()
            while true {
                let data = reading.availableData
                if data.isEmpty {
                    continuation.yield(.closed(reason: "output ended"))
                    break
                }
                do {
                    for chunk in try reader.feed(data) { continuation.yield(.chunk(chunk)) }
                } catch {
                    continuation.yield(.closed(reason: "\(error)"))
                    process.terminate()
                    break
                }
            }
            continuation.finish()
        }
        let errors = stderr.fileHandleForReading
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let data = errors.availableData
                if data.isEmpty { break }
                pending.append(data)
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    ServerLog.composition.info("\(label): \(line)")
                }
                if pending.count > 8192 { pending.removeAll() }
            }
        }
    }

    /// Asks for a clean finish: EOF on the child's stdin.
    func finish() {
        try? stdin.fileHandleForWriting.close()
    }

    /// Ends the child at once (SIGKILL: a child of a Swift process may have SIGTERM blocked).
    func kill() {
        guard !process.hasExited else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the child to exit, polling; kills it after `timeout`, and waits for that.
    func waitForExit(timeout: Duration) async {
        guard await !process.waitForExit(timeout: timeout) else { return }
        kill()
        _ = await process.waitForExit(timeout: timeout)
    }
}
