import StageWire

/// What the server's RTCP tells a publisher: keyframe requests (PLI, FIR: RFC 4585 §6.3.1,
/// RFC 5104 §4.3.1), its bandwidth estimate (REMB), loss from receiver reports (RFC 3550 §6.4.2),
/// NACKs (RFC 4585 §6.2.1: the packets to send again) and when our packets arrived
/// (transport-cc, draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1) — and what the
/// publisher's delay-based detector concludes from those (`UplinkCongestion`).
enum PublisherFeedback: Sendable, Hashable {
    case keyframeRequest(ssrc: UInt32)
    case estimate(bitsPerSecond: Int, ssrcs: [UInt32])
    case loss(ssrc: UInt32, fraction: Double)
    case nack(ssrc: UInt32, sequences: [UInt16])
    case transportFeedback(RTCPTransportCCFeedback)
    /// The uplink is over-used and this much reached the server lately (not parsed: from `UplinkCongestion`).
    case delayOveruse(ackedBitsPerSecond: Int)

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
            case .transportCCFeedback(let feedback):
                items.append(.transportFeedback(feedback))
            default:
                continue
            }
        }
        return items
    }
}
