/// An RTCP packet StageWire does not decode — APP, XR, other feedback formats, future types —
/// kept whole so it can be counted, logged or relayed (RFC 3550 §6.1: "unknown packet types
/// … should be ignored", not treated as errors).
public struct RTCPRawPacket: Hashable, Sendable {
    public var packetType: RTCPPacketType
    /// The 5-bit RC/SC/FMT field.
    public var count: UInt8
    /// The bytes after the 4-byte header, padding removed.
    public var body: [UInt8]

    public init(packetType: RTCPPacketType, count: UInt8, body: [UInt8]) {
        self.packetType = packetType
        self.count = count
        self.body = body
    }

    /// Keeps the body of a framed packet.
    init(header: RTCPHeader, body: UnsafeRawBufferPointer) {
        self.init(packetType: header.packetType, count: header.count, body: Array(body))
    }

    /// Header, body, and padding up to 32 bits.
    public var marshalSize: Int { RTCPHeader.size + RTPHeader.roundedToWords(body.count) }

    /// Appends the packet; a body that is not a multiple of 4 bytes is padded with the P bit
    /// set (RFC 3550 §6.4.1).
    /// - Throws: `RTCPError.countTooLarge` above 31, `.packetTooLong` past the length field.
    public func serialize(into out: inout [UInt8]) throws(RTCPError) {
        guard count <= RTCPHeader.maxCount else { throw .countTooLarge(Int(count)) }
        let size = marshalSize
        guard size / 4 - 1 <= Int(UInt16.max) else { throw .packetTooLong(bytes: size) }
        let padding = size - RTCPHeader.size - body.count
        RTCPHeader(padding: padding > 0, count: count, packetType: packetType, length: UInt16(size / 4 - 1))
            .serialize(into: &out)
        out.append(contentsOf: body)
        if padding > 0 {
            out.appendWireZeros(padding - 1)
            out.append(UInt8(padding))
        }
    }
}
