public import StageWire

/// Why a set of RTP packets is not one whole VP8 frame (RFC 7741 §4). The case name suits a
/// metrics drop reason; `description` is a stable one-line text for logs.
public enum VP8DepacketizerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No packet at all.
    case noPackets
    /// A payload descriptor (or the data after it) is malformed (RFC 7741 §4.2).
    case malformedPayload(sequenceNumber: UInt16, VP8Error)
    /// The first packet does not start the frame: S = 0 or PID ≠ 0 (RFC 7741 §4.4).
    case missingFrameStart(sequenceNumber: UInt16)
    /// A later packet starts a frame again (S = 1, PID = 0): two frames mixed together.
    case unexpectedFrameStart(sequenceNumber: UInt16)
    /// Sequence numbers are not contiguous: a packet is missing or out of order.
    case sequenceGap(expected: UInt16, got: UInt16)
    /// A packet's timestamp differs from the first packet's: packets of two frames.
    case timestampMismatch(expected: UInt32, got: UInt32, sequenceNumber: UInt16)
    /// A packet's PictureID differs from the first packet's.
    case pictureIDMismatch(expected: UInt16?, got: UInt16?, sequenceNumber: UInt16)
    /// The marker bit is set before the last packet: the frame ended early.
    case markerBeforeEnd(sequenceNumber: UInt16)
    /// The last packet has no marker bit: the frame's end is missing (RFC 7741 §4.1).
    case missingMarker(sequenceNumber: UInt16)

    public var description: String {
        switch self {
        case .noPackets: "VP8 frame has no packets"
        case let .malformedPayload(sequenceNumber, error): "VP8 packet \(sequenceNumber): \(error)"
        case let .missingFrameStart(sequenceNumber): "VP8 packet \(sequenceNumber) does not start a frame (S = 1, PID = 0)"
        case let .unexpectedFrameStart(sequenceNumber): "VP8 packet \(sequenceNumber) starts a second frame"
        case let .sequenceGap(expected, got): "VP8 frame has a sequence gap: expected \(expected), got \(got)"
        case let .timestampMismatch(expected, got, sequenceNumber):
            "VP8 packet \(sequenceNumber) has timestamp \(got), the frame has \(expected)"
        case let .pictureIDMismatch(expected, got, sequenceNumber):
            "VP8 packet \(sequenceNumber) has PictureID \(got.map(String.init) ?? "none"), the frame has \(expected.map(String.init) ?? "none")"
        case let .markerBeforeEnd(sequenceNumber): "VP8 packet \(sequenceNumber) has the marker bit before the frame's last packet"
        case let .missingMarker(sequenceNumber): "VP8 frame's last packet \(sequenceNumber) has no marker bit"
        }
    }
}
