/// The shared surface of every typed RTCP packet (pion's `Unmarshal`/`Marshal`/`MarshalSize`):
/// a type states its packet type, its count field and its body; this protocol's extension
/// supplies framing, padding and the common header (RFC 3550 §6.4.1).
///
/// Used generically only (`some RTCPPacketBody`), never as an existential.
public protocol RTCPPacketBody: Hashable, Sendable {
    /// The PT this type parses.
    static var packetType: RTCPPacketType { get }
    /// For feedback messages, the FMT this type parses; `nil` when the count field is a count.
    static var feedbackFormat: UInt8? { get }
    /// The value of the 5-bit RC/SC/FMT field to write.
    var countField: Int { get }
    /// Bytes of the body after the 4-byte header, before any padding.
    var bodySize: Int { get }
    /// Decodes the body (header excluded, padding removed).
    init(header: RTCPHeader, body: UnsafeRawBufferPointer) throws(RTCPError)
    /// Appends exactly `bodySize` bytes.
    func serializeBody(into out: inout [UInt8]) throws(RTCPError)
}

extension RTCPPacketBody {
    public static var feedbackFormat: UInt8? { nil }

    /// Parses exactly one packet of this type (header, body, padding) filling `packet`.
    /// - Throws: framing errors, `RTCPError.trailingBytes` if bytes follow the packet, `RTCPError.wrongPacketType`, or the type's own errors.
    public init(parsing packet: UnsafeRawBufferPointer) throws(RTCPError) {
        let frame = try RTCPPacketFrame.single(packet)
        let header = frame.header
        guard header.packetType == Self.packetType, Self.feedbackFormat.map({ $0 == header.count }) ?? true else {
            throw .wrongPacketType(expected: Self.packetType, got: header.packetType, format: header.count)
        }
        try self.init(header: header, body: UnsafeRawBufferPointer(rebasing: packet[frame.bodyRange]))
    }

    /// Parses exactly one packet of this type held in an array.
    public init(parsing packet: [UInt8]) throws(RTCPError) {
        self = try packet.withUnsafeBytes { bytes in Result { () throws(RTCPError) in try Self(parsing: bytes) } }.get()
    }

    /// Bytes `serialize(into:)` appends: header, body, padding to 32 bits.
    public var marshalSize: Int { RTCPHeader.size + RTPHeader.roundedToWords(bodySize) }

    /// Appends the packet (nothing on error). A body that is not a multiple of 4 bytes is padded with the P bit set
    /// and the count in the last octet (RFC 3550 §6.4.1), as libwebrtc does for transport-cc.
    /// - Throws: `RTCPError.countTooLarge` / `.valueTooLong` / `.packetTooLong` when a field
    ///   cannot hold the value, and type-specific errors.
    public func serialize(into out: inout [UInt8]) throws(RTCPError) {
        try RTCPHeader.appendPacket(type: Self.packetType, count: Self.feedbackFormat.map(Int.init) ?? countField,
                                    bodySize: bodySize, into: &out) { (out: inout [UInt8]) throws(RTCPError) in
            try serializeBody(into: &out)
        }
    }

    /// The packet as a new array.
    public func serialized() throws(RTCPError) -> [UInt8] {
        var out: [UInt8] = []
        try serialize(into: &out)
        return out
    }
}

/// The two SSRCs that open every feedback message (RFC 4585 §6.1).
struct RTCPFeedbackSSRCs {
    static let size = 8
    var sender: UInt32
    var media: UInt32

    /// Reads both SSRCs or throws `packetTooShort` for `type` needing `needed` bytes.
    init(reader: inout RTPByteReader, type: RTCPPacketType, needed: Int) throws(RTCPError) {
        guard let sender = reader.readUInt32(), let media = reader.readUInt32() else {
            throw .packetTooShort(type: type, needed: needed, got: reader.end)
        }
        self.sender = sender
        self.media = media
    }
}
