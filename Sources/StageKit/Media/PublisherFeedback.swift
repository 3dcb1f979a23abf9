import StageWire

/// What the server's RTCP tells a publisher: keyframe requests (PLI, FIR: RFC 4585 §6.3.1,
/// RFC 5104 §4.3.1), its bandwidth estimate (REMB), loss from receiver reports (RFC 3550 §6.4.2)
/// and NACKs (RFC 4585 §6.2.1: the packets to send again).
enum PublisherFeedback: Sendable, Hashable {
    case keyframeRequest(ssrc: UInt32)
    case estimate(bitsPerSecond: Int, ssrcs: [UInt32])
    case loss(ssrc: UInt32, fraction: Double)
    case nack(ssrc: UInt32, sequences: [UInt16])

    /// Every item of a compound packet; malformed compounds give what parsed before the error.
    static func parse(_ compound: UnsafeRawBufferPointer) -> [PublisherFeedback] {
        var iterator = RTCPCompoundIterator(compound)
        var items: [PublisherFeedback] = []
        while let packet = try? iterator.next() {
            switch packet {
            case .pictureLossIndication(let pli):
                items.append(.keyframeRequest(ssrc: pli.mediaSSRC))
            case .fullIntraRequest(let fir):
                items += fir.entries.map { .keyframeRequest(ssrc: $0.ssrc) }
            case .receiverEstimatedMaxBitrate(let remb):
                items.append(.estimate(bitsPerSecond: Int(clamping: remb.bitrate), ssrcs: remb.ssrcs))
            case .receiverReport(let report):
                items += report.reports.map { .loss(ssrc: $0.ssrc, fraction: Double($0.fractionLost) / 256) }
            case .senderReport(let report):
                items += report.reports.map { .loss(ssrc: $0.ssrc, fraction: Double($0.fractionLost) / 256) }
            case .genericNACK(let nack):
                items.append(.nack(ssrc: nack.mediaSSRC, sequences: nack.lostSequenceNumbers))
            default:
                continue
            }
        }
        return items
    }
}
