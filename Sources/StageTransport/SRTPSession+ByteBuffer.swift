import NIOCore

/// Protection into NIO buffers, for what goes out through NIO (ICE-TCP, a pipe): kept apart
/// from `SRTPSession` itself so its libsrtp calls build without NIO (scripts/fuzz.sh).
extension SRTPSession {
    /// Lets `protect` write a packet of at most `maximumLength` bytes (and its SRTP or SRTCP
    /// trailer, when `rtcp`) into a new buffer from `allocator`.
    /// - Parameter headroom: bytes reserved (as zeros) before the packet, for a framing the
    ///   caller fills in afterwards (RFC 4571's length on ICE-TCP), so that what goes on the
    ///   wire is allocated once.
    /// - Parameter protect: writes and protects the packet in the buffer it is given; returns
    ///   the protected length, 0 for nothing to send.
    /// - Returns: a buffer whose readable bytes are the `headroom` bytes followed by the
    ///   protected packet (the headroom is part of what is returned, at its reader index); nil
    ///   when nothing was written.
    func protect(maximumLength: Int, rtcp: Bool, allocator: ByteBufferAllocator, headroom: Int = 0,
                 _ protect: (UnsafeMutableRawBufferPointer) -> Int) -> ByteBuffer? {
        let capacity = maximumLength + (rtcp ? Self.maxRTCPTrailer : Self.maxTrailer)
        var buffer = allocator.buffer(capacity: headroom + capacity)
        if headroom > 0 { buffer.writeRepeatingByte(0, count: headroom) }
        let written = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: capacity) { out in
            protect(UnsafeMutableRawBufferPointer(rebasing: out[..<capacity]))
        }
        return written > 0 ? buffer : nil
    }

    /// Copies `packet` into a new buffer from `allocator`, lets `rewrite` change the copy's
    /// header (the SFU's munger), and protects it as SRTP, or SRTCP when `rtcp`; see
    /// `protect(maximumLength:rtcp:allocator:headroom:_:)`. Nil when protection failed.
    func protect(_ packet: UnsafeRawBufferPointer, rtcp: Bool, allocator: ByteBufferAllocator, headroom: Int = 0,
                 rewrite: (UnsafeMutableRawBufferPointer) -> Void = { _ in }) -> ByteBuffer? {
        protect(maximumLength: packet.count, rtcp: rtcp, allocator: allocator, headroom: headroom) { out in
            out.copyMemory(from: packet)
            rewrite(UnsafeMutableRawBufferPointer(rebasing: out[0..<packet.count]))
            return (try? rtcp ? protectRTCP(out, length: packet.count) : protectRTP(out, length: packet.count)) ?? 0
        }
    }
}
