/// A ChannelData message (RFC 8656 §12.4): application data to or from the peer bound to a
/// channel, with 4 bytes of overhead instead of a Send or Data indication's 36.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |         Channel Number        |            Length             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                                                               |
/// /                       Application Data                        /
/// /                                                               /
/// |                                                               |
/// |                               +-------------------------------+
/// |                               |
/// +-------------------------------+
/// ```
///
/// Over TCP the message is padded to a multiple of 4 bytes (§12.5), and the padding is not
/// counted in Length; over UDP padding is optional and a receiver accepts it.
public struct TURNChannelData: Hashable, Sendable {
    /// The channel, 0x4000–0x4FFF (§12).
    public var channel: UInt16
    /// The application data.
    public var payload: [UInt8]

    /// Channel number and length.
    public static let headerLength = 4
    /// §12.4: Length is 16 bits.
    public static let maximumPayloadLength = 0xFFFF

    public init(channel: UInt16, payload: [UInt8]) {
        self.channel = channel
        self.payload = payload
    }

    /// Whether a first byte is ChannelData's (0x40–0x4F: channels 0x4000–0x4FFF), the check a
    /// demultiplexer makes before parsing (RFC 8656 §12, RFC 7983 §7 leaves 64–79 to TURN).
    @inlinable
    public static func isChannelData(firstByte: UInt8) -> Bool { firstByte & 0xF0 == 0x40 }

    /// Parses one datagram holding one ChannelData message, possibly padded to 4 bytes.
    /// - Throws: ``FramingError`` for a short header, a channel outside 0x4000–0x4FFF, a length
    ///   past the datagram, or trailing bytes other than padding.
    public init(parsing bytes: [UInt8]) throws(FramingError) {
        guard bytes.count >= Self.headerLength else { throw .truncatedChannelData(available: bytes.count) }
        let channel = bytes.readUInt16(at: 0)
        guard STUNMessage.channelNumbers.contains(channel) else { throw .invalidChannelNumber(channel) }
        let length = Int(bytes.readUInt16(at: 2))
        let available = bytes.count - Self.headerLength
        guard length <= available else { throw .lengthBeyondBuffer(declared: length, available: available) }
        guard available == length || available == STUNAttribute.padded(length) else {
            throw .trailingBytes(declared: length, available: available)
        }
        self.init(channel: channel, payload: Array(bytes[Self.headerLength ..< Self.headerLength + length]))
    }

    /// The message on the wire.
    /// - Parameter padded: pad to a multiple of 4 bytes, as TCP requires (§12.5).
    /// - Throws: `invalidChannelNumber` or `payloadTooLong`.
    public func serialized(padded: Bool = false) throws(FramingError) -> [UInt8] {
        guard STUNMessage.channelNumbers.contains(channel) else { throw .invalidChannelNumber(channel) }
        guard payload.count <= Self.maximumPayloadLength else {
            throw .payloadTooLong(length: payload.count, limit: Self.maximumPayloadLength)
        }
        let total = Self.headerLength + (padded ? STUNAttribute.padded(payload.count) : payload.count)
        var out: [UInt8] = []
        out.reserveCapacity(total)
        out.appendBigEndian(channel)
        out.appendBigEndian(UInt16(payload.count))
        out += payload
        if out.count < total { out.append(contentsOf: repeatElement(0, count: total - out.count)) }
        return out
    }
}
