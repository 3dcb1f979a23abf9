/// One message a TURN server sends over a stream: a STUN message or a ChannelData message.
public enum TURNStreamFrame: Hashable, Sendable {
    case stun(STUNMessage)
    case channelData(TURNChannelData)
}

/// Splits the byte stream of TURN over TCP (RFC 8656 §12.5, RFC 8489 §6.2.2) into whole STUN
/// and ChannelData messages. There is no extra framing: the first two bits tell the kind (`00`
/// STUN, `01` ChannelData), a STUN message is its 20-byte header plus its Length, and a
/// ChannelData message is 4 bytes plus its Length padded to a multiple of 4 (§12.5).
///
/// Reading: ``append(_:)`` bytes as the socket gives them, then ``nextFrame()`` until `nil`.
/// A frame whose boundary cannot be trusted (first bits `10`/`11`, a reserved channel number,
/// a STUN header with a wrong magic cookie or a length not a multiple of 4, more than
/// ``bufferLimit`` bytes buffered) is fatal: it is thrown now and on every later call. A STUN
/// message that frames correctly but does not parse is thrown as `malformedSTUN` once and
/// skipped.
public struct TURNStreamSplitter: Sendable {
    private var buffer: ByteStreamBuffer
    private var failure: FramingError?

    /// The largest frame: a STUN header plus the largest Length that is a multiple of 4
    /// (65,532), 65,552 bytes; a padded ChannelData message is at most 4 + 65,536.
    public static let maximumFrameLength = STUNMessage.headerLength + 0xFFFC

    /// - Parameter bufferLimit: the most bytes held at once (raised to one maximal frame).
    public init(bufferLimit: Int = 256 * 1024) {
        self.buffer = ByteStreamBuffer(limit: max(bufferLimit, Self.maximumFrameLength))
    }

    /// The most bytes held at once.
    public var bufferLimit: Int { buffer.limit }
    /// Bytes received and not yet returned in a frame.
    public var bufferedCount: Int { buffer.count }

    /// Adds bytes read from the stream.
    /// - Throws: `bufferLimitExceeded` (fatal), or the earlier fatal error.
    public mutating func append<Bytes: Collection>(_ bytes: Bytes) throws(FramingError) where Bytes.Element == UInt8 {
        if let failure { throw failure }
        do {
            try buffer.append(bytes)
        } catch {
            failure = error
            throw error
        }
    }

    /// The next whole message, or `nil` until more bytes arrive.
    /// - Throws: a fatal ``FramingError`` (again on every later call), or `malformedSTUN` for a
    ///   message that has been skipped.
    public mutating func nextFrame() throws(FramingError) -> TURNStreamFrame? {
        if let failure { throw failure }
        do {
            return try frame()
        } catch {
            if error.isFatal { failure = error }
            throw error
        }
    }

    private mutating func frame() throws(FramingError) -> TURNStreamFrame? {
        guard buffer.count >= 1 else { return nil }
        let first = buffer[0]
        switch first >> 6 {
        case 0b00: return try stunFrame()
        case 0b01: return try channelDataFrame()
        default: throw .unknownFrameType(firstByte: first)
        }
    }

    /// RFC 8489 §5: 20-byte header, Length a multiple of 4, the magic cookie at bytes 4–7;
    /// checked as soon as the bytes are there, so a desynchronized stream fails early.
    private mutating func stunFrame() throws(FramingError) -> TURNStreamFrame? {
        guard buffer.count >= 4 else { return nil }
        let length = Int(buffer.uint16(at: 2))
        guard length % 4 == 0 else { throw .badSTUNHeader(.lengthNotMultipleOfFour(length)) }
        guard buffer.count >= 8 else { return nil }
        let cookie = UInt32(buffer.uint16(at: 4)) << 16 | UInt32(buffer.uint16(at: 6))
        guard cookie == STUNMessage.magicCookie else { throw .badSTUNHeader(.badMagicCookie(cookie)) }
        let total = STUNMessage.headerLength + length
        guard buffer.count >= total else { return nil }
        let bytes = buffer.bytes(0 ..< total)
        buffer.consume(total)
        do {
            return .stun(try STUNMessage(parsing: bytes))
        } catch {
            throw .malformedSTUN(error)
        }
    }

    /// RFC 8656 §12.4–12.5: channel 0x4000–0x4FFF, then Length, then data padded to 4 bytes.
    private mutating func channelDataFrame() throws(FramingError) -> TURNStreamFrame? {
        guard buffer.count >= 2 else { return nil }
        let channel = buffer.uint16(at: 0)
        guard STUNMessage.channelNumbers.contains(channel) else { throw .invalidChannelNumber(channel) }
        guard buffer.count >= TURNChannelData.headerLength else { return nil }
        let length = Int(buffer.uint16(at: 2))
        let total = TURNChannelData.headerLength + STUNAttribute.padded(length)
        guard buffer.count >= total else { return nil }
        let payload = buffer.bytes(TURNChannelData.headerLength ..< TURNChannelData.headerLength + length)
        buffer.consume(total)
        return .channelData(TURNChannelData(channel: channel, payload: payload))
    }
}
