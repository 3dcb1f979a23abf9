public import StageWire

/// One published track (mediasoup's Producer): the packets of one publisher's audio or video,
/// fanned out to its consumers. Lives on the media event loop.
public final class Producer {
    public let id: String
    public let kind: MediaKind
    /// SSRCs this track arrives on (one per simulcast layer; one for a plain track).
    public internal(set) var ssrcs: Set<UInt32> = []
    /// Simulcast layers by rid, lowest quality first (empty for a plain track).
    public let layers: [String]
    /// The SSRC each layer arrives on, once seen (indexed like `layers`).
    var layerSSRCs: [UInt32?]
    private var lastPacketAt: [PacketTime?]
    /// Which layers delivered a packet recently, updated in place on each packet.
    private var flowing: [Bool]
    /// Bytes received per layer (or for the plain track) since the last `measureLayerRates`.
    private var layerBytes: [Int]
    /// Bits per second of each layer (or of the plain track) over the last measurement.
    public private(set) var layerBitrates: [Int]
    /// How each layer's bytes split over its VP8 temporal layers, where it has them.
    private var temporalRates: TemporalLayerRates
    private var lastMeasurement: PacketTime?
    /// The SSRC of the latest packet not on a simulcast layer (a plain track's).
    private var plainSSRC: UInt32?
    /// A layer silent this long no longer counts as flowing.
    public static let layerTimeout: Duration = .milliseconds(1500)
    var consumers: [Consumer] = []
    /// Pipes to other routers, each given every packet (`ProducerTap`).
    private(set) var taps: [any ProducerTap] = []
    /// The layers used behind each tap (a pipe's far router's subscribers), by tap: dynacast
    /// keeps them sent as it does its own consumers' (`layersInUse`).
    private var tapDemand: [ObjectIdentifier: [Bool]] = [:]
    /// Recent packets for answering NACKs, one cache per simulcast layer (or one for a plain
    /// track); none for audio, which is not retransmitted.
    let caches: [PacketCache]
    /// What was lost on the way in, per cache (layer), to ask the publisher for again.
    private var lossTrackers: [UpstreamLossTracker]
    /// The SSRC each loss tracker follows (a new SSRC on a layer starts its numbering over).
    private var trackedSSRCs: [UInt32?]
    /// Sends a NACK towards the publisher: (media SSRC, lost sequence numbers). Nil: none are
    /// sent (losses are then only repaired by keyframes).
    public var requestRetransmission: ((_ ssrc: UInt32, _ sequences: [UInt16]) -> Void)?
    /// Called when a gap opens: its owner should call `checkUpstreamLoss` every
    /// `lossCheckInterval` while `isRepairingUpstreamLoss` (no timer runs on a clean link).
    public var onUpstreamLoss: (() -> Void)?
    /// Sends a keyframe request (PLI) for `ssrc` towards the publisher.
    let requestKeyframe: (_ ssrc: UInt32) -> Void
    private var lastKeyframeRequest: PacketTime?
    /// Hears every drop and keyframe request of this producer and its consumers, to count them.
    public let observer: (any ForwardingObserver)?
    /// A muted track is not forwarded (its publisher said so); unmuting asks for a keyframe, and
    /// its consumers continue their numbering where they stopped.
    public var isMuted = false {
        didSet {
            guard oldValue, !isMuted else { return }
            for consumer in consumers { consumer.resync() }
            keyframeNeeded(reason: .unmuted)
        }
    }

    /// Keyframe requests towards the publisher are at most this frequent.
    public static let keyframeRequestInterval: Duration = .milliseconds(300)

    public init(id: String, kind: MediaKind, layers: [String] = [], observer: (any ForwardingObserver)? = nil,
                requestKeyframe: @escaping (_ ssrc: UInt32) -> Void) {
        self.id = id
        self.observer = observer
        self.kind = kind
        self.layers = layers
        self.requestKeyframe = requestKeyframe
        layerSSRCs = Array(repeating: nil, count: layers.count)
        lastPacketAt = Array(repeating: nil, count: layers.count)
        flowing = Array(repeating: false, count: layers.count)
        layerBytes = Array(repeating: 0, count: max(1, layers.count))
        layerBitrates = layerBytes
        temporalRates = TemporalLayerRates(layers: layers.count)
        lastKnownBitrates = layerBytes
        pausedByPublisher = Array(repeating: false, count: layers.count)
        resumedAt = Array(repeating: nil, count: layers.count)
        caches = kind == .video ? (0..<max(1, layers.count)).map { _ in PacketCache() } : []
        lossTrackers = Array(repeating: UpstreamLossTracker(), count: caches.count)
        trackedSSRCs = Array(repeating: nil, count: caches.count)
    }

    /// One RTP packet from the publisher (decrypted, header checked).
    /// - Parameters:
    ///   - layer: its simulcast layer index (0 for a plain track).
    ///   - payloadOffset: where the RTP payload starts (after CSRCs and extensions).
    ///   - fields: its header fields, from the parse the caller already did.
    public func receive(_ packet: UnsafeMutableRawBufferPointer, fields: RTPFixedFields, layer: Int = 0, payloadOffset: Int = 12,
                        now: PacketTime = .now) {
        let ssrc = fields.ssrc
        // `ssrcs` is hashed only when a layer (or the plain track) arrives on a new SSRC.
        if layers.indices.contains(layer) {
            if layerSSRCs[layer] != ssrc {
                layerSSRCs[layer] = ssrc
                ssrcs.insert(ssrc)
            }
            lastPacketAt[layer] = now
        } else if plainSSRC != ssrc {
            plainSSRC = ssrc
            ssrcs.insert(ssrc)
        }
        if !caches.isEmpty {
            let index = caches.indices.contains(layer) ? layer : 0
            guard !caches[index].contains(ssrc: ssrc, sequence: fields.sequenceNumber) else {
                observer?.dropped(.duplicate)
                return
            }
            caches[index].store(UnsafeRawBufferPointer(packet), ssrc: ssrc, sequence: fields.sequenceNumber, now: now)
            trackLoss(index: index, ssrc: ssrc, sequence: fields.sequenceNumber, now: now)
        }
        layerBytes[layerBytes.indices.contains(layer) ? layer : 0] += packet.count
        let payload = UnsafeRawBufferPointer(rebasing: packet[min(payloadOffset, packet.count)...])
        // Its VP8 payload descriptor (RFC 7741 §4.2), read once for every consumer: its temporal
        // layer, and below whether it starts a keyframe.
        let descriptor = kind == .video ? try? VP8PayloadDescriptor.parse(payload) : nil
        var temporal: TemporalLayerFilter.Mark?
        if let parsed = descriptor?.descriptor, let temporalLayer = parsed.temporalLayerID {
            let edges = RTPMunger.FrameEdges(endsFrame: packet.count > 1 && packet[1] & 0x80 != 0, startsFrame: parsed.startsFrame)
            temporal = .init(layer: temporalLayer, sync: parsed.layerSync, edges: edges)
            temporalRates.record(layer: layer, temporalLayer: temporalLayer, count: packet.count)
        }
        guard !isMuted else {
            observer?.dropped(.muted)
            return
        }
        updateFlowing(now: now)
        for tap in taps { tap.producer(self, forwards: UnsafeRawBufferPointer(packet), fields: fields, layer: layer) }
        // Whether the packet starts a VP8 keyframe: parsed at most once, when a consumer asks.
        var startsKeyframe: Bool?
        for consumer in consumers {
            consumer.forward(UnsafeRawBufferPointer(packet), fields: fields, layer: layer, temporal: temporal, flowing: flowing,
                             payloadOffset: payloadOffset, now: now) {
                let starts = startsKeyframe ?? descriptor.map { VP8PayloadDescriptor.isKeyframe(payload, parsed: $0) } ?? false
                startsKeyframe = starts
                return starts
            }
        }
    }

    /// Which layers flow now (a layer silent for `layerTimeout` does not).
    public var flowingLayers: [Bool] { flowing }

    /// Layers the publisher was told to stop sending (dynacast), indexed like `layers`.
    public private(set) var pausedByPublisher: [Bool]
    /// When each layer was last told to resume (it measures 0 until it flows again).
    private var resumedAt: [PacketTime?]
    /// Each layer's recent peak bitrate: the highest measurement, decaying by a fifth a
    /// measurement once the layer has flowed a whole `resumeGrace` (not while it resumes: an
    /// encoder ramps up after a resume, and a peak worn down by those measurements once offered
    /// a paused layer to every allocator at its lower neighbour's cost). Not the last one: the
    /// window in which a layer stops (or starts) holds only part of a second of it, and an
    /// allocator that took that for its rate would choose it on a link it does not fit. Erring
    /// high only makes an allocator wait for more room.
    private var lastKnownBitrates: [Int]
    /// How long a resumed layer is offered at its last rate before it must be flowing.
    public static let resumeGrace: Duration = .seconds(3)

    /// Records which layers the publisher was told to send (dynacast).
    public func setPublisherLayers(enabled: [Bool], now: PacketTime = .now) {
        for index in pausedByPublisher.indices where enabled.indices.contains(index) {
            if pausedByPublisher[index], enabled[index] { resumedAt[index] = now }
            pausedByPublisher[index] = !enabled[index]
        }
    }

    /// Each layer's recent peak bitrate (what a paused layer is offered at).
    public var recentPeakBitrates: [Int] { lastKnownBitrates }

    /// For a copy of a producer on another router (fed through a pipe): whether the origin's
    /// publisher was told to pause `layer`, and the layer's recent peak there. A paused layer
    /// stays on offer to the copy's allocators at that peak — the copy may never have seen it
    /// flow — and choosing it sends demand back to the origin, which resumes it.
    public func setOriginLayer(_ layer: Int, paused: Bool, peakBitrate: Int, now: PacketTime = .now) {
        guard pausedByPublisher.indices.contains(layer) else { return }
        if pausedByPublisher[layer], !paused { resumedAt[layer] = now }
        pausedByPublisher[layer] = paused
        if paused { lastKnownBitrates[layer] = max(0, peakBitrate) }
    }

    /// What each layer would cost a subscriber, for its stream allocator: the measured bitrate
    /// of a flowing layer; the recent peak of a layer paused by dynacast (choosing it resumes it)
    /// or resumed less than `resumeGrace` ago (not measured over a whole second yet, so at least
    /// that peak); 0 for a layer that stopped by itself. A layer on offer never costs less than
    /// the one below it (a higher simulcast layer carries more pixels).
    public func allocatableBitrates(now: PacketTime = .now) -> [Int] {
        var costs = layerBitrates.indices.map { index in
            guard pausedByPublisher.indices.contains(index) else { return layerBitrates[index] }
            if pausedByPublisher[index] { return lastKnownBitrates[index] }
            return isResuming(index, now: now) ? max(layerBitrates[index], lastKnownBitrates[index]) : layerBitrates[index]
        }
        for index in costs.indices.dropFirst() where costs[index] > 0 {
            costs[index] = max(costs[index], costs[index - 1])
        }
        return costs
    }

    /// The steps a subscriber's allocator may choose: `allocatableBitrates` per simulcast layer,
    /// split where a layer has VP8 temporal layers (`TemporalLayerRates.steps`).
    public func allocationSteps(now: PacketTime = .now) -> [LayerStep] {
        temporalRates.steps(costs: allocatableBitrates(now: now))
    }

    /// A video stream without simulcast whose VP8 temporal layers were measured in the last
    /// second (two or more): its subscribers' allocators may forward part of its frames.
    public var isSingleStreamWithTemporalLayers: Bool {
        kind == .video && layers.isEmpty && temporalRates.shares.first.map { $0.count > 1 } == true
    }

    /// Whether a layer was told to resume less than `resumeGrace` ago.
    private func isResuming(_ index: Int, now: PacketTime) -> Bool {
        resumedAt.indices.contains(index) && resumedAt[index].map { now - $0 < Self.resumeGrace } ?? false
    }

    /// Which simulcast layers some consumer forwards now, is switching to, or would take if
    /// every layer flowed (within its preferred layer and its allocator's ceiling): what
    /// dynacast must keep the publisher sending.
    public func layersInUse() -> [Bool] {
        var used = Array(repeating: false, count: layers.count)
        for demand in tapDemand.values {
            for (index, wanted) in demand.enumerated() where wanted && used.indices.contains(index) { used[index] = true }
        }
        let everyLayer = Array(repeating: true, count: layers.count)
        for consumer in consumers {
            guard let selector = consumer.selector else { continue }
            for layer in [selector.current, selector.target, selector.wanted(flowing: everyLayer)] {
                if let layer, used.indices.contains(layer) { used[layer] = true }
            }
        }
        return used
    }

    /// Turns the bytes received since the last call into each layer's bitrate (call about once
    /// a second); a layer that stopped flowing measures 0.
    public func measureLayerRates(now: PacketTime = .now) {
        defer {
            lastMeasurement = now
            for index in layerBytes.indices { layerBytes[index] = 0 }
        }
        guard let last = lastMeasurement else { return }
        let seconds = now.seconds(since: last)
        guard seconds > 0 else { return }
        updateFlowing(now: now)
        temporalRates.measure()
        for index in layerBytes.indices {
            let flows = layers.isEmpty || flowing[index]
            layerBitrates[index] = flows ? Int(Double(layerBytes[index] * 8) / seconds) : 0
            guard layerBitrates[index] > 0 else { continue }
            let peak = isResuming(index, now: now) ? lastKnownBitrates[index] : lastKnownBitrates[index] * 4 / 5
            lastKnownBitrates[index] = max(layerBitrates[index], peak)
        }
    }

    /// The SSRC a simulcast layer arrives on, once seen.
    public func ssrc(ofLayer layer: Int) -> UInt32? {
        layerSSRCs.indices.contains(layer) ? layerSSRCs[layer] : nil
    }

    /// Notes the packet's sequence number; a gap is asked for at once, one too large to repair
    /// asks for a keyframe.
    private func trackLoss(index: Int, ssrc: UInt32, sequence: UInt16, now: PacketTime) {
        guard let requestRetransmission else { return }
        if trackedSSRCs[index] != ssrc {
            trackedSSRCs[index] = ssrc
            lossTrackers[index].reset()
        }
        switch lossTrackers[index].received(sequence, now: now) {
        case .ok: break
        case .gap(let lost):
            observer?.retransmissionRequested(count: lost.count)
            requestRetransmission(ssrc, lost)
            onUpstreamLoss?()
        case .tooLarge: keyframeNeeded(cacheIndex: index, reason: .upstreamLoss, now: now)
        }
    }

    /// Asks the publisher again for what is still missing, and for a keyframe of a layer where
    /// a packet was given up on. Called every `lossCheckInterval` by the publisher's session
    /// while `isRepairingUpstreamLoss`.
    public func checkUpstreamLoss(now: PacketTime = .now) {
        guard let requestRetransmission else { return }
        for index in lossTrackers.indices {
            guard let ssrc = trackedSSRCs[index] else { continue }
            let (requests, gaveUp) = lossTrackers[index].due(now: now)
            if !requests.isEmpty {
                observer?.retransmissionRequested(count: requests.count)
                requestRetransmission(ssrc, requests)
            }
            if gaveUp { keyframeNeeded(cacheIndex: index, reason: .upstreamLoss, now: now) }
        }
    }

    /// A keyframe of the layer a cache (and loss tracker) belongs to.
    private func keyframeNeeded(cacheIndex: Int, reason: KeyframeRequestReason, now: PacketTime) {
        if layers.isEmpty {
            keyframeNeeded(reason: reason, now: now)
        } else {
            keyframeNeeded(layer: cacheIndex, reason: reason, now: now)
        }
    }

    /// Whether packets lost on the way in are still being asked for.
    public var isRepairingUpstreamLoss: Bool { lossTrackers.contains(where: \.isRepairing) }

    /// How often `checkUpstreamLoss` should run.
    public static let lossCheckInterval: Duration = .milliseconds(20)

    /// Calls `body` with a recent packet of this track, if a cache still holds it.
    /// - Returns: whether one did.
    public func withCachedPacket(ssrc: UInt32, sequence: UInt16, now: PacketTime, _ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
        caches.contains { $0.withPacket(ssrc: ssrc, sequence: sequence, now: now, body) }
    }

    /// A Sender Report from the publisher for one of this track's SSRCs: each consumer that
    /// forwards that source gets it translated to its own SSRC and timeline (RFC 3550 §6.4.1),
    /// so subscribers can keep audio and video in sync.
    public func senderReport(ssrc: UInt32, ntpTime: UInt64, rtpTime: UInt32) {
        for consumer in consumers { consumer.translateSenderReport(source: ssrc, ntpTime: ntpTime, rtpTime: rtpTime) }
        for tap in taps { tap.producer(self, senderReport: ssrc, ntpTime: ntpTime, rtpTime: rtpTime) }
    }

    /// Marks which layers delivered a packet recently (in place: no allocation per packet).
    private func updateFlowing(now: PacketTime) {
        for index in flowing.indices {
            flowing[index] = lastPacketAt[index].map { now - $0 < Self.layerTimeout } ?? false
        }
    }

    /// Asks the publisher for a keyframe on one layer, rate limited per producer.
    public func keyframeNeeded(layer: Int, reason: KeyframeRequestReason, now: PacketTime = .now) {
        guard layerSSRCs.indices.contains(layer), let ssrc = layerSSRCs[layer], mayRequestKeyframe(now: now) else { return }
        observer?.keyframeRequested(reason)
        requestKeyframe(ssrc)
    }

    /// A consumer or the SFU wants a keyframe: ask the publisher, rate limited.
    public func keyframeNeeded(reason: KeyframeRequestReason, now: PacketTime = .now) {
        guard kind == .video, !ssrcs.isEmpty, mayRequestKeyframe(now: now) else { return }
        for ssrc in ssrcs {
            observer?.keyframeRequested(reason)
            requestKeyframe(ssrc)
        }
    }

    /// Whether a keyframe request may go now (at most one per `keyframeRequestInterval`); if so,
    /// it counts as sent, and if not, as throttled.
    private func mayRequestKeyframe(now: PacketTime) -> Bool {
        if let last = lastKeyframeRequest, now - last < Self.keyframeRequestInterval {
            observer?.dropped(.keyframeRequestThrottled)
            return false
        }
        lastKeyframeRequest = now
        return true
    }

    func attach(_ consumer: Consumer) {
        consumers.append(consumer)
        keyframeNeeded(reason: .newConsumer)
    }

    func detach(_ consumer: Consumer) {
        consumers.removeAll { $0 === consumer }
    }

    /// Gives `tap` every packet from now on, and asks for a keyframe, as a new consumer does.
    public func attach(tap: any ProducerTap) {
        guard !taps.contains(where: { $0 === tap }) else { return }
        taps.append(tap)
        keyframeNeeded(reason: .newConsumer)
    }

    /// Stops giving `tap` packets; what it said was used behind it no longer counts.
    public func detach(tap: any ProducerTap) {
        taps.removeAll { $0 === tap }
        tapDemand[ObjectIdentifier(tap)] = nil
    }

    /// The layers used behind `tap` (indexed like `layers`), for dynacast (`layersInUse`).
    public func setDemand(_ layers: [Bool], behind tap: any ProducerTap) {
        guard taps.contains(where: { $0 === tap }) else { return }
        tapDemand[ObjectIdentifier(tap)] = layers
    }

    /// The publisher reconnected: its new producer for the same track takes every consumer, so
    /// subscribers keep their connection and see one continuous stream (the munger treats the
    /// new SSRCs as a source switch).
    public func handOver(to successor: Producer) {
        guard successor !== self, successor.kind == kind else { return }
        let moving = consumers
        consumers.removeAll()
        for consumer in moving { consumer.rebind(to: successor) }
        let movingTaps = taps
        taps.removeAll()
        for tap in movingTaps {
            successor.attach(tap: tap)
            if let demand = tapDemand[ObjectIdentifier(tap)] { successor.setDemand(demand, behind: tap) }
            tap.producer(self, handedOverTo: successor)
        }
        tapDemand.removeAll()
    }

    /// The publisher is gone: every consumer stops.
    public func close() {
        for consumer in consumers { consumer.producerClosed() }
        consumers.removeAll()
        let closing = taps
        taps.removeAll()
        tapDemand.removeAll()
        for tap in closing { tap.producerClosed(self) }
    }
}
