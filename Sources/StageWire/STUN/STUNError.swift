/// Why a STUN message (RFC 8489) could not be parsed, read or built.
///
/// Each case names the field or rule it broke. Parsing never traps on network input: every
/// malformed datagram ends in one of these.
public enum STUNError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Fewer than the 20 header bytes of §5.
    case truncatedHeader(available: Int)
    /// §5: the two most significant bits of every STUN message are zero.
    case leadingBitsNotZero(firstByte: UInt8)
    /// §5: the magic cookie field must hold 0x2112A442.
    case badMagicCookie(UInt32)
    /// §5: the message length excludes the header and is always a multiple of 4.
    case lengthNotMultipleOfFour(Int)
    /// §5: the message length points past the end of the datagram.
    case lengthBeyondBuffer(declared: Int, available: Int)
    /// Bytes follow the message the length field describes (one datagram, one message).
    case trailingBytes(declared: Int, available: Int)
    /// §14: an attribute's value (padded to 4 bytes) runs past the end of the message.
    case attributeBeyondMessage(type: STUNAttributeType, offset: Int, length: Int)
    /// An attribute whose value length the RFC fixes or bounds has another length.
    case invalidAttributeLength(type: STUNAttributeType, length: Int)
    /// §14.7: FINGERPRINT must be the last attribute.
    case fingerprintNotLast(offset: Int)
    /// §14.7: the CRC-32 in FINGERPRINT does not match the message.
    case fingerprintMismatch(expected: UInt32, received: UInt32)
    /// §14.1/§14.2: address family other than 0x01 (IPv4) or 0x02 (IPv6).
    case unknownAddressFamily(type: STUNAttributeType, family: UInt8)
    /// §14.3/§14.8/§14.10: a text attribute that is not valid UTF-8.
    case invalidUTF8(type: STUNAttributeType)
    /// §14.8: class must be 3–6 and number 0–99.
    case invalidErrorCode(errorClass: UInt8, number: UInt8)
    /// Building: a value longer than its attribute allows, or a message over 65,535 bytes.
    case valueTooLong(type: STUNAttributeType, length: Int, limit: Int)
    /// RFC 8656 §12: a CHANNEL-NUMBER outside 0x4000–0x4FFF.
    case invalidChannelNumber(UInt16)

    public var description: String {
        switch self {
        case .truncatedHeader(let available):
            "STUN header needs 20 bytes, have \(available) (RFC 8489 §5)"
        case .leadingBitsNotZero(let first):
            "STUN first byte \(hex(first)) has its two leading bits set (RFC 8489 §5)"
        case .badMagicCookie(let cookie):
            "STUN magic cookie \(hex(cookie)) is not 0x2112a442 (RFC 8489 §5)"
        case .lengthNotMultipleOfFour(let length):
            "STUN message length \(length) is not a multiple of 4 (RFC 8489 §5)"
        case .lengthBeyondBuffer(let declared, let available):
            "STUN message length \(declared) exceeds the \(available) bytes after the header (RFC 8489 §5)"
        case .trailingBytes(let declared, let available):
            "STUN message length \(declared) leaves \(available - declared) trailing bytes"
        case .attributeBeyondMessage(let type, let offset, let length):
            "STUN attribute \(type) at offset \(offset) with length \(length) runs past the message (RFC 8489 §14)"
        case .invalidAttributeLength(let type, let length):
            "STUN attribute \(type) has invalid length \(length)"
        case .fingerprintNotLast(let offset):
            "STUN FINGERPRINT at offset \(offset) is not the last attribute (RFC 8489 §14.7)"
        case .fingerprintMismatch(let expected, let received):
            "STUN FINGERPRINT \(hex(received)) does not match computed \(hex(expected)) (RFC 8489 §14.7)"
        case .unknownAddressFamily(let type, let family):
            "STUN \(type) has unknown address family \(hex(family)) (RFC 8489 §14.1)"
        case .invalidUTF8(let type):
            "STUN \(type) is not valid UTF-8"
        case .invalidErrorCode(let errorClass, let number):
            "STUN ERROR-CODE class \(errorClass) number \(number) is out of range (RFC 8489 §14.8)"
        case .valueTooLong(let type, let length, let limit):
            "STUN \(type) value of \(length) bytes exceeds \(limit)"
        case .invalidChannelNumber(let number):
            "TURN channel number \(hex(number)) is outside 0x4000–0x4fff (RFC 8656 §12)"
        }
    }
}

@usableFromInline
func hex<T: FixedWidthInteger>(_ value: T) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, T.bitWidth / 4 - digits.count)) + digits
}
