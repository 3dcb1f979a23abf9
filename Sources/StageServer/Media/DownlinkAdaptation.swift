import NIOCore
import StageCongestion
import StageSFU
import StageWire

/// One subscriber's stream allocation: its downlink estimate (`DownlinkEstimator`, from the
/// loss its receiver reports and NACKs show and its REMB) spent across the simulcast layers of what it receives
/// (`StreamAllocator`; below the lowest one, its VP8 temporal layers) and the temporal layers of
/// video sent without simulcast, applied as each consumer's layer ceiling. Runs on the media
/// event loop, once per receiver report.
///
/// Before a move up, the link is probed (`ProbeController`): padding on the RTX stream brings
/// what is sent up to what the estimate buys, or the next step if that costs more (up to
/// `ProbeController.reach` × the estimate), until the next report (about a second); only if that
/// report shows no loss does the move happen, and the estimate is then at least what the probe
/// tried. A probe starts only from layers carried cleanly. A failed probe costs a little loss on
/// the current layer, not a broken keyframe of the next; its aftermath cuts the estimate no lower
/// than the media was sent at before it and keeps the layers it started from. Until a probe
/// passes, no layer goes up. Subscribers without RTX move up untried (the move is the probe).
///
/// A subscriber that sends transport-cc feedback (Chromium, the SDK) is also judged by its delay, as GCC
/// in a browser judges its own uplink: each feedback packet's arrivals go through
/// `DelayBasedDetector` (StageCongestion, shared with the SDK publisher), and at over-use the
/// estimate drops to what arrived lately and the layers are reallocated at once, without waiting for the next
/// receiver report (a second or so); a probe under way fails. A link that narrows is seen in
/// its queue within a few feedback packets, before it drops anything. Its probes are judged by
/// their own arrivals too (`ProbeArrivals`: the padding's loss, which its reports never show).
final class DownlinkAdaptation {
    private var estimator = DownlinkEstimator()
    /// Numbers and send times of what the subscriber was sent, if it negotiated transport-cc.
    private let sendHistory: TransportSendHistory?
    /// Its feedback's delay trend, and what arrived of what was sent (`DelayBasedDetector`).
    private var delay = DelayBasedDetector()
    /// Packets the feedback reported received and lost since the delay last became steady: the
    /// loss during an over-use, which says whether the link overflows.
    private var overuseArrivals = (received: 0, lost: 0)
    private var allocator = StreamAllocator()
    /// What had been sent at the previous report: (when, packets, octets) over all consumers.
    private var lastSent: (at: ContinuousClock.Instant, packets: Int, octets: Int)?
    /// Loss over the same interval, from the reports' cumulative counters.
    private var reportedLoss = ReportedLoss()
    /// Sequence numbers the subscriber NACKed since the estimator last ran, each once. A
    /// receiver that counts what RTX repaired as received (Chromium does) reports little loss
    /// on a link that loses a third of what it is sent; what it asks for again tells.
    private var nackedLoss = NackedLoss()
    /// Per packet on the wire besides the RTP payload counted in `octetsForwarded`: RTP header,
    /// SRTP tag, UDP/IPv4 headers (about; extensions vary).
    static let overheadPerPacket = 12 + 10 + 28
    /// Loss at which the link is taken to overflow now, not just to be a little short: GCC's
    /// loss-based controller decreases above a tenth (draft-ietf-rmcat-gcc-02 §6). A layer moved
    /// down on such a link stops at once: what is still sent of it is mostly lost, and it
    /// queues ahead of the lower layer's keyframe.
    static let overflowLoss = 0.1

    private let eventLoop: (any EventLoop)?
    /// The probe under way and the last one's aftermath.
    private var probes = ProbeController()
    /// Sends the padding of the probe under way, every `ProbeController.tick`.
    private var probeTask: RepeatedTask?
    /// The consumer whose RTX stream carries that padding.
    private weak var prober: Consumer?

    /// The downlink estimate, once a receiver report or REMB has been weighed (nil before).
    var reportedEstimate: Int? { weighed ? estimator.estimate : nil }
    private var weighed = false
    /// Hears the estimate when it moved by a tenth or more since it last heard it, at most
    /// once a second (the subscriber's signaling connection, which shows it).
    var onEstimateChanged: ((Int) -> Void)?
    private var lastAnnounced: (at: ContinuousClock.Instant, bitsPerSecond: Int)?
    static let announceInterval: Duration = .seconds(1)

    /// Paces what the subscriber is sent at a multiple of the estimate, or of what the last
    /// allocation sends when that is more (`allocatedBitrate`).
    private let pacer: SubscriberPacer?
    /// Bits a second the last allocation sends: its layers' costs and what has no layers.
    private var allocatedBitrate = 0

    init(eventLoop: (any EventLoop)?, sendHistory: TransportSendHistory? = nil, pacer: SubscriberPacer? = nil) {
        self.eventLoop = eventLoop
        self.sendHistory = sendHistory
        self.pacer = pacer
    }

    deinit { probeTask?.cancel() }

    /// The subscriber asked for packets of `ssrc` again (RFC 4585 generic NACK). Media lost
    /// while a probe runs may give the probe up.
    func nacked(ssrc: UInt32, sequences: [UInt16], consumers: [UInt32: Consumer], now: ContinuousClock.Instant) {
        let before = nackedLoss.count
        // Numbers we never sent (lost before reaching us) say nothing of the subscriber's link.
        let gaps = consumers[ssrc]?.outgoingGaps
        nackedLoss.nacked(ssrc: ssrc, sequences: gaps.map { gaps in sequences.filter { !gaps.contains($0) } } ?? sequences)
        guard probes.probe != nil else { return }
        let sent = consumers.values.reduce(0) { $0 + $1.packetsForwarded }
        guard probes.nacked(count: nackedLoss.count - before, packetsSent: sent, now: now) else { return }
        probeGivenUp()
    }

    /// The subscriber's transport-cc feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01
    /// §3.1): when what we sent it arrived. At over-use, the estimate drops to
    /// `DownlinkEstimator.overuseFactor` of what arrived lately and the layers follow now.
    func transportFeedback(_ feedback: RTCPTransportCCFeedback, consumers: [UInt32: Consumer], now: ContinuousClock.Instant) {
        // No more packets than are remembered can be in flight: a report of more is not read.
        guard let sendHistory, Int(feedback.packetStatusCount) <= TransportSendHistory.capacity else { return }
        for packet in sendHistory.match(feedback) {
            delay.packet(size: packet.size + TransportSendHistory.overheadPerPacket, sentAt: packet.sentAt, arrivedAt: packet.arrivedAt)
            let arrived = packet.arrivedAt != nil
            if arrived { overuseArrivals.received += 1 } else { overuseArrivals.lost += 1 }
            probes.transportArrival(sequence: packet.sequence, arrived: arrived)
        }
        if probes.giveUpIfItsPacketsAreLost(now: now) { probeGivenUp() }
        // The link is the limit only while less arrives than is sent into it: a queue that grew
        // before a layer was stopped still reads as over-use, and cutting to what arrived while
        // little was sent would leave the estimate below the lowest layer.
        let cutFrom = delay.overuseCut(nowMicros: Int64(PacketTime(now).microseconds))
        guard delay.usage == .overusing else {
            overuseArrivals = (0, 0)
            return
        }
        guard let arrived = cutFrom else { return }
        MediaMetrics.shared.delayOveruses.increment()
        if probes.giveUp(now: now) { probeGivenUp() }
        // An over-use during a probe, or just after, is the queue its padding built: the media
        // alone was carried before it.
        let carried = probes.carriedBeforeProbe(now: now)
        guard estimator.delayOverused(ackedBitrate: arrived, carried: carried) else { return }
        weighed = true
        let total = overuseArrivals.received + overuseArrivals.lost
        let loss = total > 0 ? Double(overuseArrivals.lost) / Double(total) : 0
        allocate(consumers: consumers, videoBudget: estimator.estimate - Self.fixedCost(consumers), upgradesAllowed: false,
                 overflows: loss >= Self.overflowLoss, now: now)
        announceEstimate(now: now)
    }

    /// A report from the subscriber: its blocks about our streams and its REMB, if any.
    func report(blocks: [RTCPReceptionReport], receiverEstimate: UInt64?, consumers: [UInt32: Consumer], now: ContinuousClock.Instant) {
        if let receiverEstimate {
            estimator.receiverEstimate(bitsPerSecond: Int(clamping: receiverEstimate))
            weighed = true
        }
        let ours = blocks.filter { consumers[$0.ssrc] != nil }
        guard !ours.isEmpty else { return }
        let packets = consumers.values.reduce(0) { $0 + $1.packetsForwarded }
        let octets = consumers.values.reduce(0) { $0 + $1.octetsForwarded }
        guard let last = lastSent else {
            lastSent = (now, packets, octets)
            _ = reportedLoss.fraction(ours, unsent: Self.unsent(consumers))
            _ = nackedLoss.take()
            return
        }
        let seconds = Double((now - last.at).components.seconds) + Double((now - last.at).components.attoseconds) / 1e18
        // Reports closer together (a receiver that reports with every NACK) wait for the next:
        // the interval, and the loss over it, grow until then.
        guard seconds >= 0.2 else { return }
        lastSent = (now, packets, octets)
        let bits = ((octets - last.octets) + (packets - last.packets) * Self.overheadPerPacket + probes.takePaddingBytes()) * 8
        let sentBitrate = Int(Double(bits) / seconds)
        reportedLoss.keep(only: Set(consumers.keys))
        nackedLoss.keep(only: Set(consumers.keys))
        let reported = reportedLoss.fraction(ours, unsent: Self.unsent(consumers)) ?? ours.map { Double($0.fractionLost) / 256 }.max() ?? 0
        let sentPackets = packets - last.packets
        let nacked = nackedLoss.take()
        let asked = sentPackets > 0 ? min(1, Double(nacked) / Double(sentPackets)) : 0
        let loss = max(reported, asked)
        // What cannot adapt (audio, plain video) is paid first; `wanted` is the whole bitrate
        // the allocator's next step would need.
        let fixed = Self.fixedCost(consumers)
        let wanted = allocator.nextStep > 0 ? allocator.nextStep + fixed : 0
        estimator.receiverReport(fractionLost: loss, sentBitrate: sentBitrate, wanted: wanted,
                                 delay: sendHistory == nil ? .unmeasured : delay.usage == .normal ? .steady : .changing,
                                 probing: probes.probe != nil, carried: probes.carriedBeforeProbe(now: now))
        weighed = true
        // A probe passed shows the next step fits: this report's allocation may take it, or its
        // success is lost (it said the link carried the step then, not later: a link that
        // narrowed since would take the step untried).
        var probePassed = false
        if let verdict = probes.judge(loss: loss, now: now) {
            stopProbeTask()
            if case .passed(let target) = verdict {
                estimator.probePassed(testedBitrate: target)
                probePassed = true
            }
            (probePassed ? MediaMetrics.shared.probesPassed : MediaMetrics.shared.probesFailed).increment()
        }
        let budget = estimator.estimate
        // The next step costs at most `ProbeController.reach` × the estimate: try it with padding first, if
        // RTX allows — and with it every step the estimate buys, so that one probe takes the
        // subscriber up as far as the estimate goes (one step a probe, a CLI guest was back on
        // 1280 px 22 s after its link widened: the lowest layer's temporal steps are steps too).
        // Only from layers carried cleanly: a report with no loss and a steady delay, and no
        // switch waiting for its keyframe (the layer just taken is not tested by its own traffic
        // yet; probed from, one that overflowed a 200 kbps link was kept by the failed probe).
        let clean = loss < ProbeSchedule.lossToGiveUp && delay.usage == .normal
        let settled = clean && !consumers.values.contains { $0.selector?.target != nil }
        if settled, !probePassed, !allocator.nextStepBlocked, probes.mayStart(wanted: wanted, estimate: budget, now: now),
           let paddingSender = consumers.values.first(where: { $0.canProbe && $0.producer != nil }) {
            let trial = affordable(consumers: consumers, videoBudget: max(budget, wanted) - fixed, now: now)
            startProbe(from: paddingSender, target: max(wanted, trial.bitsPerSecond + fixed), switchesLayer: trial.switchesLayer,
                       mediaBitrate: sentBitrate, packetsSent: packets, now: now)
        }
        // With RTX, a track moves up only on the report that judged a probe passed: not while one
        // runs, nor after one failed, nor because a step measured cheaper this second than the
        // `wanted` the probe decision used (one subscriber's aiortc went from 640 to 1280 px on
        // a 300 kbps link that way, untried). A track's first placement is no move up.
        // An estimate still at its maximum has never met a limit: moves up need no probe there
        // (a subscriber asking for another layer on such a link gets it at once, as before).
        let upgradesAllowed = probePassed || !consumers.values.contains(where: \.canProbe) || budget >= DownlinkEstimator.maximum
        allocate(consumers: consumers, videoBudget: budget - fixed, upgradesAllowed: upgradesAllowed,
                 overflows: loss >= Self.overflowLoss, now: now)
        probes.reported(clean: clean, since: last.at)
        announceEstimate(now: now)
    }

    /// Gives the pacer its rate, and the estimate to `onEstimateChanged` when it moved enough.
    private func announceEstimate(now: ContinuousClock.Instant) {
        pacer?.pace(for: max(estimator.estimate, allocatedBitrate))
        guard let onEstimateChanged else { return }
        let estimate = estimator.estimate
        if let last = lastAnnounced {
            guard now - last.at >= Self.announceInterval, abs(estimate - last.bitsPerSecond) * 10 >= last.bitsPerSecond else { return }
        }
        lastAnnounced = (now, estimate)
        onEstimateChanged(estimate)
    }

    /// Starts a probe (`ProbeController.start`) whose padding `consumer` sends.
    private func startProbe(from consumer: Consumer, target: Int, switchesLayer: Bool, mediaBitrate: Int, packetsSent: Int,
                            now: ContinuousClock.Instant) {
        guard let eventLoop else { return }
        probes.start(target: target, switchesLayer: switchesLayer, mediaBitrate: mediaBitrate, packetsSent: packetsSent,
                     firstTransportSequence: sendHistory?.nextSequence, now: now)
        prober = consumer
        // The task runs on the loop this object lives on.
        let adaptation = NIOLoopBound(WeakAdaptation(adaptation: self), eventLoop: eventLoop)
        let tick = TimeAmount(ProbeController.tick)
        probeTask = eventLoop.scheduleRepeatedTask(initialDelay: tick, delay: tick) { _ in
            adaptation.value.adaptation?.sendProbePadding()
        }
    }

    /// The probe under way was given up early, as failed.
    private func probeGivenUp() {
        stopProbeTask()
        MediaMetrics.shared.probesGivenUp.increment()
    }

    private func stopProbeTask() {
        probeTask?.cancel()
        probeTask = nil
        prober = nil
    }

    /// On the wire, a padding packet: RTP header and padding, SRTP tag, UDP/IPv4 headers.
    private static let paddingPacketBytes = RTPHeader.fixedSize + Consumer.paddingPerPacket + overheadPerPacket - 12

    /// One tick of padding at the probe's rate; a probe whose consumer went away is cancelled.
    private func sendProbePadding() {
        guard let consumer = prober, let count = probes.paddingDue(packetBytes: Double(Self.paddingPacketBytes)) else {
            probes.cancel()
            return stopProbeTask()
        }
        probes.paddingSent(bytes: consumer.sendPadding(count: count) + count * (Self.overheadPerPacket - 12))
    }

    /// Lets the probe task end with the adaptation instead of keeping it alive.
    private struct WeakAdaptation { weak var adaptation: DownlinkAdaptation? }

    /// Spends `videoBudget` on the video tracks and applies each one's layer ceiling (a
    /// simulcast layer, and a VP8 temporal layer within it where the track has them:
    /// `Producer.allocationSteps`); on a link that `overflows`, a layer moved down stops at once
    /// instead of at the lower one's keyframe.
    private func allocate(consumers: [UInt32: Consumer], videoBudget: Int, upgradesAllowed: Bool, overflows: Bool,
                          now: ContinuousClock.Instant) {
        let (tracks, byID) = Self.tracks(consumers, now: now)
        let chosen = allocator.allocate(budget: videoBudget, tracks: tracks, now: now, upgradesAllowed: upgradesAllowed,
                                        keepingHeldLayers: probes.keepsLayersAfterFailedProbe(now: now))
        allocatedBitrate = Self.cost(of: chosen, tracks: tracks) + Self.fixedCost(consumers)
        for (id, index) in chosen {
            guard let (consumer, steps) = byID[id] else { continue }
            let step = steps[index]
            guard consumer.selector?.ceiling != step.layer || consumer.temporalCeiling != step.temporalLayer else { continue }
            // A first ceiling equal to the layer forwarded is no move (it was counted as one down).
            if let layer = consumer.allocatedLayer {
                let before = (layer, consumer.temporalCeiling ?? Int.max), after = (step.layer, step.temporalLayer ?? Int.max)
                if before != after { (after > before ? MediaMetrics.shared.allocationsUp : MediaMetrics.shared.allocationsDown).increment() }
            }
            consumer.setCeiling(step.layer, temporalLayer: step.temporalLayer, overflows: overflows)
        }
    }

    /// What the video the allocator would choose for `videoBudget` with every move up allowed
    /// costs (back-offs still hold), and whether it moves some track to another simulcast layer
    /// (not only another temporal layer): what a probe tries. The allocator is a value: the
    /// trial changes nothing it remembers.
    private func affordable(consumers: [UInt32: Consumer], videoBudget: Int, now: ContinuousClock.Instant)
        -> (bitsPerSecond: Int, switchesLayer: Bool) {
        var trial = allocator
        let (tracks, byID) = Self.tracks(consumers, now: now)
        let chosen = trial.allocate(budget: videoBudget, tracks: tracks, now: now)
        let switches = chosen.contains { id, index in
            byID[id].map { $0.steps[index].layer != $0.consumer.allocatedLayer } ?? false
        }
        return (Self.cost(of: chosen, tracks: tracks), switches)
    }
}
