/// A parsed STUN message (RFC 8489 §5, §14): the header read into fields and the attributes left
/// in place, found by offset when asked for.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |0 0|     STUN Message Type     |         Message Length        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         Magic Cookie                          |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                     Transaction ID (96 bits)                  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// Parsing checks the header, walks the attribute TLVs once to prove they fit, notes where
/// MESSAGE-INTEGRITY(-SHA256) and FINGERPRINT sit, and checks FINGERPRINT's CRC (§14.7). It
/// keeps one array (the caller's, when given an array) and allocates nothing else; typed values
/// are decoded by the accessors in `STUNMessage+Attributes.swift`.
public struct STUNMessage: Hashable, Sendable {
    /// §5: the fixed value of the second header word.
    public static let magicCookie: UInt32 = 0x2112_A442
    /// §5: bytes in the header.
    public static let headerLength = 20

    /// The whole message, header included.
    public let bytes: [UInt8]
    public let type: STUNMessageType
    public let transactionID: STUNTransactionID
    /// Header offset of MESSAGE-INTEGRITY, if present.
    let integrityOffset: Int?
    /// Header offset of MESSAGE-INTEGRITY-SHA256, if present.
    let integritySHA256Offset: Int?
    /// Header offset of FINGERPRINT, if present (it is then the last attribute).
    let fingerprintOffset: Int?
    /// Where the attributes that count end: §14.5/§14.6 say to ignore everything after the first
    /// integrity attribute except the other integrity attribute and FINGERPRINT.
    let protectedEnd: Int

    /// Parses one datagram holding exactly one STUN message.
    /// - Parameter bytes: the datagram; kept (not copied) as ``bytes``.
    /// - Throws: ``STUNError`` naming the header field or attribute that is malformed, or
    ///   `fingerprintMismatch` when FINGERPRINT is present and wrong.
    public init(parsing bytes: [UInt8]) throws(STUNError) {
        let header = try Self.parseHeader(bytes)
        var integrityOffset: Int?
        var integritySHA256Offset: Int?
        var fingerprintOffset: Int?
        var protectedEnd = bytes.count
        var offset = Self.headerLength
        while offset < bytes.count {
            // The message length and each padded value are multiples of 4, so a header always fits.
            let type = STUNAttributeType(rawValue: bytes.readUInt16(at: offset))
            let length = Int(bytes.readUInt16(at: offset + 2))
            let end = offset + 4 + STUNAttribute.padded(length)
            guard end <= bytes.count else {
                throw .attributeBeyondMessage(type: type, offset: offset, length: length)
            }
            if fingerprintOffset != nil { throw .fingerprintNotLast(offset: offset) }
            switch type {
            case .messageIntegrity:
                guard length == 20 else { throw .invalidAttributeLength(type: type, length: length) }
                if integrityOffset == nil { integrityOffset = offset }
                protectedEnd = min(protectedEnd, offset)
            case .messageIntegritySHA256:
                // §14.6: 16 to 32 bytes, a multiple of 4.
                guard length >= 16, length <= 32, length % 4 == 0 else {
                    throw .invalidAttributeLength(type: type, length: length)
                }
                if integritySHA256Offset == nil { integritySHA256Offset = offset }
                protectedEnd = min(protectedEnd, offset)
            case .fingerprint:
                guard length == 4 else { throw .invalidAttributeLength(type: type, length: length) }
                fingerprintOffset = offset
                protectedEnd = min(protectedEnd, offset)
            default:
                break
            }
            offset = end
        }
        self.bytes = bytes
        self.type = header.type
        self.transactionID = header.transactionID
        self.integrityOffset = integrityOffset
        self.integritySHA256Offset = integritySHA256Offset
        self.fingerprintOffset = fingerprintOffset
        self.protectedEnd = protectedEnd
        if let fingerprintOffset {
            let received = bytes.readUInt32(at: fingerprintOffset + 4)
            let expected = Self.fingerprint(of: bytes, upTo: fingerprintOffset)
            guard received == expected else { throw .fingerprintMismatch(expected: expected, received: received) }
        }
    }

    /// Parses a datagram in borrowed memory (copies it once into ``bytes``).
    public init(parsing buffer: UnsafeRawBufferPointer) throws(STUNError) {
        try self.init(parsing: Array(buffer))
    }

    /// §5 header checks: 20 bytes, leading zero bits, magic cookie, length a multiple of 4 that
    /// matches the datagram exactly.
    static func parseHeader(_ bytes: [UInt8]) throws(STUNError) -> (type: STUNMessageType, transactionID: STUNTransactionID) {
        guard bytes.count >= headerLength else { throw .truncatedHeader(available: bytes.count) }
        guard bytes[0] & 0xC0 == 0 else { throw .leadingBitsNotZero(firstByte: bytes[0]) }
        let cookie = bytes.readUInt32(at: 4)
        guard cookie == magicCookie else { throw .badMagicCookie(cookie) }
        let length = Int(bytes.readUInt16(at: 2))
        guard length % 4 == 0 else { throw .lengthNotMultipleOfFour(length) }
        let available = bytes.count - headerLength
        guard length <= available else { throw .lengthBeyondBuffer(declared: length, available: available) }
        guard length == available else { throw .trailingBytes(declared: length, available: available) }
        let id = STUNTransactionID(
            high: bytes.readUInt32(at: 8), middle: bytes.readUInt32(at: 12), low: bytes.readUInt32(at: 16))
        return (STUNMessageType(rawValue: bytes.readUInt16(at: 0)), id)
    }

    /// A cheap check for the demultiplexer: at least a header, a first byte in RFC 7983 §7's STUN
    /// range (0–3, i.e. methods below 0x100) and the magic cookie in place (RFC 8489 §5). Does not
    /// parse. (``init(parsing:)`` itself accepts any first byte with the two leading bits zero.)
    @inlinable
    public static func looksLikeSTUN(_ datagram: UnsafeRawBufferPointer) -> Bool {
        guard datagram.count >= 20, datagram[0] <= 3 else { return false }
        return datagram[4] == 0x21 && datagram[5] == 0x12 && datagram[6] == 0xA4 && datagram[7] == 0x42
    }

    /// The message length field: bytes after the header.
    public var length: Int { bytes.count - Self.headerLength }

    /// Every attribute in order, including any after MESSAGE-INTEGRITY (which §14.5 says to
    /// ignore; the typed accessors do).
    public var attributes: Attributes { Attributes(bytes: bytes, end: bytes.count) }

    /// The attributes that count: those before the first integrity attribute or FINGERPRINT.
    public var protectedAttributes: Attributes { Attributes(bytes: bytes, end: protectedEnd) }

    /// The first attribute of `type` (§14: only the first occurrence needs processing). Attributes
    /// after MESSAGE-INTEGRITY are not found, except the integrity attributes and FINGERPRINT.
    public func attribute(_ type: STUNAttributeType) -> STUNAttribute? {
        switch type {
        case .messageIntegrity: return integrityOffset.map { attribute(at: $0) }
        case .messageIntegritySHA256: return integritySHA256Offset.map { attribute(at: $0) }
        case .fingerprint: return fingerprintOffset.map { attribute(at: $0) }
        default: return protectedAttributes.first { $0.type == type }
        }
    }

    /// The value bytes of an attribute of this message, without padding.
    public func value(of attribute: STUNAttribute) -> ArraySlice<UInt8> {
        bytes[attribute.valueRange]
    }

    func attribute(at offset: Int) -> STUNAttribute { Self.attribute(at: offset, in: bytes) }

    /// The attribute whose 4-byte header starts at `offset` (the caller checked it fits).
    static func attribute(at offset: Int, in bytes: [UInt8]) -> STUNAttribute {
        STUNAttribute(
            type: STUNAttributeType(rawValue: bytes.readUInt16(at: offset)),
            offset: offset, length: Int(bytes.readUInt16(at: offset + 2)))
    }

    /// The attributes of a message, walked in place.
    public struct Attributes: Sequence {
        let bytes: [UInt8]
        let end: Int

        public func makeIterator() -> Iterator { Iterator(bytes: bytes, offset: STUNMessage.headerLength, end: end) }

        public struct Iterator: IteratorProtocol {
            let bytes: [UInt8]
            var offset: Int
            let end: Int

            public mutating func next() -> STUNAttribute? {
                guard offset + 4 <= end else { return nil }
                let attribute = STUNMessage.attribute(at: offset, in: bytes)
                guard attribute.end <= end else { return nil }
                offset = attribute.end
                return attribute
            }
        }
    }
}
