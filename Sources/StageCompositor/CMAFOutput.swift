internal import CAV

/// A write-only `AVIOContext` (`avio_alloc_context` with a write callback) that collects what
/// the muxer writes into a Swift buffer, so init segments and fragments never touch a file.
/// Owns the context and its buffer and frees both in `deinit`.
final class CMAFOutput {
    private(set) var context: UnsafeMutablePointer<AVIOContext>
    /// Bytes written since the last ``take()``.
    private var collected: [UInt8] = []

    private static let bufferSize = 64 * 1024

    init() throws(AVError) {
        guard let buffer = av_malloc(Self.bufferSize) else { throw .allocationFailed("AVIO buffer") }
        collected.reserveCapacity(256 * 1024)
        // `opaque` is filled in below, once `self` exists; the callback only runs on writes.
        guard let context = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Int32(Self.bufferSize),
                                               1, nil, nil, CMAFOutput.write, nil)
        else {
            av_free(buffer)
            throw .allocationFailed("AVIOContext")
        }
        self.context = context
        context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        // The context may have replaced its buffer; free whichever it holds now.
        av_freep(&context.pointee.buffer)
        var context: UnsafeMutablePointer<AVIOContext>? = context
        avio_context_free(&context)
    }

    /// Flushes the AVIO buffer through the callback and returns everything written since the
    /// last call.
    func take() throws(AVError) -> [UInt8] {
        avio_flush(context)
        try AVError.check(context.pointee.error, "avio write")
        defer { collected.removeAll(keepingCapacity: true) }
        return collected
    }

    private static let write: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = {
        opaque, bytes, count in
        guard let opaque, count >= 0 else { return -22 }  // AVERROR(EINVAL)
        let output = Unmanaged<CMAFOutput>.fromOpaque(opaque).takeUnretainedValue()
        if let bytes, count > 0 {
            output.collected.append(contentsOf: UnsafeBufferPointer(start: bytes, count: Int(count)))
        }
        return count
    }
}

@available(*, unavailable, message: "owns an AVIOContext; use from one task or actor")
extension CMAFOutput: Sendable {}
