import StageMedia
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Reading a live stream from a pipe or FIFO: the header wait with a deadline (a FIFO reads 0
/// bytes until a writer opens it; a pipe only at its end), then blocking reads until the end.
enum PipeReading {
    /// Feeds bytes to `headerComplete` until it says the header is in, or `timeout` passes.
    /// The descriptor is made non-blocking for the wait and blocking again after it.
    /// - Parameter header: what is awaited, for the errors ("YUV4MPEG2 header").
    static func readHeader(_ descriptor: Int32, name: String, header: String, waitsForWriter: Bool, timeout: Duration,
                           headerComplete: (ArraySlice<UInt8>) throws(MediaDeviceError) -> Bool) throws(MediaDeviceError) {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        defer { _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK) }
        let deadline = ContinuousClock.now + timeout
        var chunk = [UInt8](repeating: 0, count: 4096)
        if try headerComplete([]) { return }
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                throw .unavailable(device: name, reason: "no \(header) within \(timeout) (is a producer writing to it?)")
            }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&poller, 1, Int32(min(left.components.seconds * 1000 + 1, 100)))
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                if try headerComplete(chunk[..<count]) { return }
            } else if count == 0 {
                guard waitsForWriter else { throw .unavailable(device: name, reason: "the stream ended before its \(header)") }
                usleep(10_000)
            }
        }
    }

    /// Reads until the end of the stream, `stopped`, or `take` returns false; closes the descriptor.
    static func readUntilEnd(_ descriptor: Int32, stopped: borrowing Atomic<Bool>, take: (ArraySlice<UInt8>) -> Bool) {
        defer { close(descriptor) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while !stopped.load(ordering: .relaxed) {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 200) != 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0, take(chunk[..<count]) else { return }
        }
    }
}
