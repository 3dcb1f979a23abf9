import StageSFU
import StageWire

/// One subscriber's stream allocation: its downlink estimate (`DownlinkEstimator`, from its
/// receiver reports and REMB) spent across the simulcast layers of what it receives
/// (`StreamAllocator`), applied as each consumer's layer ceiling. Runs on the media event loop,
/// once per receiver report.
final class DownlinkAdaptation {
    private var estimator = DownlinkEstimator()
    private var allocator = StreamAllocator()
    /// What had been sent at the previous report: (when, packets, octets) over all consumers.
    private var lastSent: (at: ContinuousClock.Instant, packets: Int, octets: Int)?
    /// Per packet on the wire besides the RTP payload counted in `octetsForwarded`: RTP header,
    /// SRTP tag, UDP/IPv4 headers (about; extensions vary).
    static let overheadPerPacket = 12 + 10 + 28

    /// The estimate, in bits per second.
    var estimate: Int { estimator.estimate }

    /// A report from the subscriber: its blocks about our streams and its REMB, if any.
    func report(blocks: [RTCPReceptionReport], receiverEstimate: UInt64?, consumers: [UInt32: Consumer], now: ContinuousClock.Instant) {
        if let receiverEstimate { estimator.receiverEstimate(bitsPerSecond: Int(clamping: receiverEstimate)) }
        let ours = blocks.filter { consumers[$0.ssrc] != nil }
        guard !ours.isEmpty else { return }
        let packets = consumers.values.reduce(0) { $0 + $1.packetsForwarded }
        let octets = consumers.values.reduce(0) { $0 + $1.octetsForwarded }
        defer { lastSent = (now, packets, octets) }
        guard let last = lastSent else { return }
        let seconds = Double((now - last.at).components.seconds) + Double((now - last.at).components.attoseconds) / 1e18
        guard seconds >= 0.2 else { return }
        let bits = ((octets - last.octets) + (packets - last.packets) * Self.overheadPerPacket) * 8
        let loss = ours.map { Double($0.fractionLost) / 256 }.max() ?? 0
        estimator.receiverReport(fractionLost: loss, sentBitrate: Int(Double(bits) / seconds), wanted: allocator.nextStep)
        allocate(consumers: consumers, now: now)
    }

    /// Audio and plain video are paid first; the rest goes to the simulcast tracks.
    private func allocate(consumers: [UInt32: Consumer], now: ContinuousClock.Instant) {
        var budget = estimator.estimate
        var tracks: [StreamAllocator.Track] = []
        var byID: [String: Consumer] = [:]
        for consumer in consumers.values {
            guard let producer = consumer.producer else { continue }
            if consumer.selector == nil {
                budget -= producer.layerBitrates.first ?? 0
            } else {
                tracks.append(.init(id: consumer.id, layerBitrates: producer.layerBitrates, preferred: consumer.selector?.preferred))
                byID[consumer.id] = consumer
            }
        }
        for (id, layer) in allocator.allocate(budget: budget, tracks: tracks, now: now) {
            byID[id]?.setCeiling(layer)
        }
    }
}
