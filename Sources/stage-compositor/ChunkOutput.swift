import Foundation
import StageHLS
import Synchronization

/// stdout, where the server reads our chunks (`HLSChunkStream` framing). Writes are whole
/// chunks under a lock; a closed pipe (the server went away) ends the process.
final class ChunkOutput: Sendable {
    private let lock = Mutex<Void>(())

    init() { signal(SIGPIPE, SIG_IGN) }

    func write(_ chunk: HLSChunk) {
        let bytes = HLSChunkStream.encode(chunk)
        lock.withLock { _ in
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Foundation.write(1, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        CompositorLog.write("stdout closed (\(String(cString: strerror(errno)))); exiting")
                        exit(3)
                    }
                    offset += written
                }
            }
        }
    }
}

/// Diagnostics go to stderr, one line each; the server logs them under the composition.
enum CompositorLog {
    static func write(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
