/// Why a ChannelData message (RFC 8656 §12.4) or a framed byte stream (RFC 8656 §12.5 /
/// RFC 8489 §6.2.2 for TURN over TCP, RFC 4571 §2 for ICE-TCP) could not be read or written.
///
/// Errors marked *fatal* leave a stream without a frame boundary to resume from: the framer
/// that threw keeps throwing the same error and the connection should be closed. The others
/// concern one frame, which has been consumed; reading may go on.
public enum FramingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A ChannelData datagram shorter than its 4-byte header (§12.4).
    case truncatedChannelData(available: Int)
    /// §12: channel numbers are 0x4000–0x4FFF; 0x5000–0x7FFF are reserved. Fatal in a stream.
    case invalidChannelNumber(UInt16)
    /// §12.4: the ChannelData length points past the end of the datagram.
    case lengthBeyondBuffer(declared: Int, available: Int)
    /// §12.5: bytes after a ChannelData message other than its padding to 4 bytes.
    case trailingBytes(declared: Int, available: Int)
    /// Building: a payload over the 65,535 bytes a 16-bit length holds (ChannelData, RFC 4571).
    case payloadTooLong(length: Int, limit: Int)
    /// A stream frame that starts with neither STUN's `00` nor ChannelData's `01` bits
    /// (RFC 8656 §12: 0x8000–0xFFFF are not ChannelData; RFC 8489 §5 for STUN). Fatal.
    case unknownFrameType(firstByte: UInt8)
    /// A STUN header in a stream whose magic cookie or length is wrong (RFC 8489 §5): the
    /// frame boundary is lost. Fatal.
    case badSTUNHeader(STUNError)
    /// A STUN message that framed correctly but failed to parse (attributes, FINGERPRINT); it
    /// has been consumed.
    case malformedSTUN(STUNError)
    /// An RFC 4571 frame longer than the framer's configured maximum. Fatal.
    case frameTooLarge(length: Int, limit: Int)
    /// More bytes were appended than the framer buffers without a whole frame being read. Fatal.
    case bufferLimitExceeded(buffered: Int, limit: Int)

    /// Whether the stream has lost its frame boundary (the framer keeps throwing it).
    public var isFatal: Bool {
        switch self {
        case .malformedSTUN, .truncatedChannelData, .lengthBeyondBuffer, .trailingBytes, .payloadTooLong: false
        case .invalidChannelNumber, .unknownFrameType, .badSTUNHeader, .frameTooLarge, .bufferLimitExceeded: true
        }
    }

    public var description: String {
        switch self {
        case .truncatedChannelData(let available):
            "ChannelData header needs 4 bytes, have \(available) (RFC 8656 §12.4)"
        case .invalidChannelNumber(let number):
            "channel number \(hex(number)) is outside 0x4000–0x4fff (RFC 8656 §12)"
        case .lengthBeyondBuffer(let declared, let available):
            "ChannelData length \(declared) exceeds the \(available) bytes after the header (RFC 8656 §12.4)"
        case .trailingBytes(let declared, let available):
            "ChannelData length \(declared) leaves \(available - declared) bytes that are not padding (RFC 8656 §12.5)"
        case .payloadTooLong(let length, let limit):
            "payload of \(length) bytes exceeds the \(limit) a 16-bit length holds"
        case .unknownFrameType(let first):
            "stream frame starts with \(hex(first)): neither STUN nor ChannelData (RFC 8656 §12)"
        case .badSTUNHeader(let error):
            "STUN header in the stream is malformed, frame boundary lost: \(error)"
        case .malformedSTUN(let error):
            "STUN message in the stream is malformed: \(error)"
        case .frameTooLarge(let length, let limit):
            "RFC 4571 frame of \(length) bytes exceeds the limit of \(limit)"
        case .bufferLimitExceeded(let buffered, let limit):
            "stream buffer would hold \(buffered) bytes, over its limit of \(limit)"
        }
    }
}
