/// Everything the RTP parser, serializer and in-place rewriters can reject (RFC 3550 §5.1,
/// RFC 8285 header extensions and the extension value codecs).
///
/// Each case names what was short or invalid; `description` is a stable one-line text suitable
/// for logs, and the case name is suitable as a metrics drop reason.
public enum RTPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Fewer bytes than the 12-byte fixed header (RFC 3550 §5.1).
    case headerTooShort(needed: Int, got: Int)
    /// The version field is not 2 (RFC 3550 §5.1).
    case badVersion(UInt8)
    /// The CC field promises more CSRC identifiers than the packet holds (RFC 3550 §5.1).
    case csrcListTooShort(needed: Int, got: Int)
    /// The X bit is set but the 4-byte extension header (profile, length) is cut (RFC 3550 §5.3.1).
    case extensionHeaderTooShort(needed: Int, got: Int)
    /// The extension length field runs past the end of the packet (RFC 3550 §5.3.1).
    case extensionTooShort(needed: Int, got: Int)
    /// The P bit is set but the last octet (the padding count) is zero (RFC 3550 §5.1).
    case paddingCountZero
    /// The padding count is larger than the bytes after the header (RFC 3550 §5.1).
    case paddingExceedsPayload(padding: Int, available: Int)
    /// An extension ID outside what the form allows: 1–14 one-byte, 1–255 two-byte (RFC 8285 §4.2, §4.3).
    case invalidExtensionID(UInt8)
    /// An extension value too long (or, one-byte form, empty) for the form (RFC 8285 §4.2, §4.3).
    case invalidExtensionLength(id: UInt8, length: Int)
    /// The extension block is not in an RFC 8285 form, so elements cannot be read or written.
    case unsupportedExtensionProfile(UInt16)
    /// A rewrite asked for an extension element the packet does not carry.
    case extensionNotFound(id: UInt8)
    /// An in-place rewrite found the element but with a different length than the new value.
    case extensionLengthMismatch(id: UInt8, expected: Int, got: Int)
    /// An extension value has the wrong size for its codec (abs-send-time 3, transport-cc 2, audio level 1).
    case extensionValueLength(expected: Int, got: Int)
    /// A mid / rid / repaired-rid value that is empty or not printable ASCII (RFC 8852 §3, RFC 8843 §14).
    case invalidExtensionText
    /// The extension block would exceed the 16-bit length field (65535 words, RFC 3550 §5.3.1).
    case extensionBlockTooLong(bytes: Int)
    /// More than the 15 CSRCs the 4-bit CC field can count (RFC 3550 §5.1).
    case tooManyCSRCs(Int)
    /// A payload type above 127 (the field is 7 bits, RFC 3550 §5.1).
    case invalidPayloadType(UInt8)

    public var description: String {
        switch self {
        case let .headerTooShort(needed, got):
            "RTP header too short: needed \(needed) bytes, got \(got)"
        case let .badVersion(version):
            "RTP version \(version), expected 2"
        case let .csrcListTooShort(needed, got):
            "RTP CSRC list too short: needed \(needed) bytes, got \(got)"
        case let .extensionHeaderTooShort(needed, got):
            "RTP extension header too short: needed \(needed) bytes, got \(got)"
        case let .extensionTooShort(needed, got):
            "RTP header extension runs past the packet: needed \(needed) bytes, got \(got)"
        case .paddingCountZero:
            "RTP padding bit set with a zero padding count"
        case let .paddingExceedsPayload(padding, available):
            "RTP padding count \(padding) exceeds the \(available) bytes after the header"
        case let .invalidExtensionID(id):
            "RTP header extension ID \(id) is not allowed in this form"
        case let .invalidExtensionLength(id, length):
            "RTP header extension \(id) cannot carry \(length) bytes in this form"
        case let .unsupportedExtensionProfile(profile):
            "RTP header extension profile 0x\(String(profile, radix: 16)) is not RFC 8285"
        case let .extensionNotFound(id):
            "RTP header extension \(id) not present"
        case let .extensionLengthMismatch(id, expected, got):
            "RTP header extension \(id) is \(got) bytes, the new value is \(expected)"
        case let .extensionValueLength(expected, got):
            "RTP header extension value is \(got) bytes, expected \(expected)"
        case .invalidExtensionText:
            "RTP header extension text is empty or not printable ASCII"
        case let .extensionBlockTooLong(bytes):
            "RTP header extension block of \(bytes) bytes exceeds 65535 words"
        case let .tooManyCSRCs(count):
            "RTP header has \(count) CSRCs, at most 15 fit"
        case let .invalidPayloadType(payloadType):
            "RTP payload type \(payloadType) is above 127"
        }
    }
}
