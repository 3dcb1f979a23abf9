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
        try RTCPHeader.appendPacket(type: packetType, count: Int(count), bodySize: body.count, into: &out) { $0.append(contentsOf: body) }
    }
}
