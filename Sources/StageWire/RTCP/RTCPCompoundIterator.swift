/// Walks the packets of a compound RTCP packet (RFC 3550 §6.1) without copying it.
///
/// Each packet is framed first — V = 2, length within the buffer, padding count valid — and a
/// framing error ends the walk (the next boundary is unknowable). A packet that frames but does
/// not decode throws from `next()` *after* the iterator has moved past it, so a caller may log
/// it and keep going: one malformed transport-cc does not hide the PLI after it. Unknown types
/// come back as `.raw`. Reduced-size RTCP (RFC 5506) is accepted: the first packet need not be
/// an SR or RR.
///
/// ```swift
/// var packets = RTCPCompoundIterator(buffer)
/// while let packet = try packets.next() { … }
/// ```
///
/// The iterator borrows the buffer: use it only while that memory is alive.
public struct RTCPCompoundIterator {
    private let buffer: UnsafeRawBufferPointer
    /// Where the next packet starts.
    public private(set) var offset = 0
    private var stopped = false

    public init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
    }

    /// Frames the next packet without decoding its body; `nil` after the last one.
    /// - Throws: `RTCPError.trailingBytes` for 1–3 bytes left after a packet (`.headerTooShort`
    ///   when the whole buffer is that short), or the framing error; the walk then ends.
    public mutating func nextFrame() throws(RTCPError) -> RTCPPacketFrame? {
        guard !stopped, offset < buffer.count else { return nil }
        let remaining = buffer.count - offset
        guard remaining >= RTCPHeader.size else {
            stopped = true
            throw offset == 0 ? .headerTooShort(needed: RTCPHeader.size, got: remaining) : .trailingBytes(remaining)
        }
        do {
            let frame = try RTCPPacketFrame(buffer: buffer, offset: offset)
            offset = frame.range.upperBound
            return frame
        } catch {
            stopped = true
            throw error
        }
    }

    /// Frames and decodes the next packet; `nil` after the last one.
    public mutating func next() throws(RTCPError) -> RTCPPacket? {
        guard let frame = try nextFrame() else { return nil }
        return try RTCPPacket(frame: frame, in: buffer)
    }
}

extension RTCPPacket {
    /// Parses every packet of a compound RTCP packet, strictly: any framing or decoding error,
    /// or an empty buffer, throws (RFC 3550 §6.1, A.2).
    public static func parseCompound(_ buffer: UnsafeRawBufferPointer) throws(RTCPError) -> [RTCPPacket] {
        guard !buffer.isEmpty else { throw .emptyCompound }
        var iterator = RTCPCompoundIterator(buffer)
        var packets: [RTCPPacket] = []
        while let packet = try iterator.next() { packets.append(packet) }
        return packets
    }

    /// Parses every packet of a compound RTCP packet held in an array; see `parseCompound(_:)`.
    public static func parseCompound(_ buffer: [UInt8]) throws(RTCPError) -> [RTCPPacket] {
        try buffer.withUnsafeBytes { bytes in Result { () throws(RTCPError) in try parseCompound(bytes) } }.get()
    }

    /// Serializes packets back to back as one compound packet (RFC 3550 §6.1). Putting an SR or
    /// RR first and an SDES CNAME in it is the caller's choice (RFC 5506 allows otherwise).
    public static func serializeCompound(_ packets: [RTCPPacket]) throws(RTCPError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(packets.reduce(0) { $0 + $1.marshalSize })
        for packet in packets { try packet.serialize(into: &out) }
        return out
    }
}
