import NIOCore

/// The one buffer a socket's owner decrypts datagrams in, in place: NIO's buffer is shared
/// (with the pipeline's copy of the envelope, and its receive pool), so mutating it would copy
/// it into a new allocation. One datagram at a time: one handled while another is (its handler
/// re-entered) or longer than the buffer gets its own copy. Touched only on the owner's loop.
final class DatagramScratch {
    private let buffer: UnsafeMutableRawBufferPointer
    private var inUse = false

    init(capacity: Int) {
        buffer = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// Calls `body` with a mutable copy of `data`'s readable bytes.
    @inline(__always)
    func withMutableBytes(of data: ByteBuffer, _ body: (UnsafeMutableRawBufferPointer) -> Void) {
        let length = data.readableBytes
        guard !inUse, length <= buffer.count else {
            var copy = data
            return copy.withUnsafeMutableReadableBytes(body)
        }
        inUse = true
        defer { inUse = false }
        let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<length])
        data.withUnsafeReadableBytes { bytes.copyMemory(from: $0) }
        body(bytes)
    }
}
