/// Everything the VP8 RTP payload parsers and rewriters can reject (RFC 7741 §4.2 payload
/// descriptor, §4.3 payload header, RFC 6386 §9.1 keyframe start).
///
/// Each case names what was short or invalid; `description` is a stable one-line text for logs
/// and the case name suits a metrics drop reason.
public enum VP8Error: Error, Hashable, Sendable, CustomStringConvertible {
    /// An RTP payload with no byte at all: not even the descriptor's first octet.
    case emptyPayload
    /// The descriptor's X/I/M/L/T/K bits promise more octets than the payload has (RFC 7741 §4.2).
    case descriptorTooShort(needed: Int, got: Int)
    /// Nothing after the descriptor: a VP8 packet must carry frame data (libwebrtc rejects it too).
    case noFrameData
    /// Fewer than the 3 octets of the payload header (RFC 7741 §4.3).
    case payloadHeaderTooShort(needed: Int, got: Int)
    /// The payload header was asked of a packet that does not start the first partition
    /// (S = 1, PID = 0; RFC 7741 §4.3).
    case notFirstPartitionStart
    /// A keyframe header shorter than start code + width + height (RFC 6386 §9.1: 7 octets).
    case keyframeHeaderTooShort(needed: Int, got: Int)
    /// The keyframe start code is not 0x9d 0x01 0x2a (RFC 6386 §9.1).
    case badStartCode(UInt32)
    /// A rewrite of the PictureID in a descriptor without one (I = 0).
    case pictureIDAbsent
    /// A rewrite of TL0PICIDX in a descriptor without one (L = 0).
    case tl0PicIdxAbsent

    public var description: String {
        switch self {
        case .emptyPayload: "VP8 payload is empty"
        case let .descriptorTooShort(needed, got): "VP8 payload descriptor too short: needed \(needed) bytes, got \(got)"
        case .noFrameData: "VP8 payload has no frame data after the descriptor"
        case let .payloadHeaderTooShort(needed, got): "VP8 payload header too short: needed \(needed) bytes, got \(got)"
        case .notFirstPartitionStart: "VP8 packet does not start the first partition"
        case let .keyframeHeaderTooShort(needed, got): "VP8 keyframe header too short: needed \(needed) bytes, got \(got)"
        case let .badStartCode(code): "VP8 keyframe start code 0x\(String(code, radix: 16)), expected 0x9d012a"
        case .pictureIDAbsent: "VP8 payload descriptor has no PictureID"
        case .tl0PicIdxAbsent: "VP8 payload descriptor has no TL0PICIDX"
        }
    }
}
