import StageWire

/// One subscriber's copy of a producer (mediasoup's Consumer): decides nothing about layers,
/// rewrites headers through its `RTPMunger` and hands each packet to its transport.
public final class Consumer {
    public let id: String
    public private(set) weak var producer: Producer?
    var munger: RTPMunger
    /// Splices the VP8 PictureID and TL0PICIDX across layer switches (video only).
    private var pictureMunger: VP8PictureMunger?
    /// Where its packets, repairs and Sender Reports go.
    let transport: any ConsumerTransport
    /// Layer choice for a simulcast producer (nil for a plain track).
    public private(set) var selector: LayerSelector?
    /// Which VP8 temporal layers to forward within that layer (video only; the finer step).
    private var temporalFilter: TemporalLayerFilter?
    /// The highest temporal layer the allocator lets through (nil: all).
    public var temporalCeiling: Int? { temporalFilter?.ceiling }
    /// The highest temporal layer forwarded now (nil: all).
    public var temporalLayer: Int? { temporalFilter?.current }
    /// Whether a subscriber's stream allocator chooses what this consumer forwards: a simulcast
    /// layer, or part of the frames of a single stream with VP8 temporal layers. The rest (audio,
    /// other video) costs what it sends.
    public var isAllocated: Bool { selector != nil || producer?.isSingleStreamWithTemporalLayers == true }
    /// The simulcast layer the allocator last chose, else the one forwarded (nil: neither yet);
    /// 0 for a stream without simulcast.
    public var allocatedLayer: Int? { selector.map { $0.ceiling ?? $0.current } ?? 0 }
    /// Paused consumers drop packets (mute, or a subscription to audio only); resuming continues
    /// the outgoing numbering without a gap.
    public var isPaused = false {
        didSet { if oldValue && !isPaused { munger.resync() } }
    }
    public private(set) var packetsForwarded = 0
    public private(set) var octetsForwarded = 0
    /// The RTX stream (RFC 4588) this consumer resends on, when the subscriber negotiated one.
    public private(set) var retransmission: Retransmission?
    private var retransmissionSequence = UInt16.random(in: .min ... .max)
    /// Where RTX packets are built: one packet, allocated when RTX is enabled.
    private var retransmissionBuffer: UnsafeMutableRawBufferPointer?
    /// Its producer's observer (kept here: the producer is a weak reference read per packet).
    private var observer: (any ForwardingObserver)?

    public var outgoingSSRC: UInt32 { munger.outgoingSSRC }

    /// An RTX stream: its SSRC (`a=ssrc-group:FID` with the consumer's) and payload type (`apt=`).
    public struct Retransmission: Sendable, Equatable {
        public var ssrc: UInt32
        public var payloadType: UInt8
        public init(ssrc: UInt32, payloadType: UInt8) {
            self.ssrc = ssrc
            self.payloadType = payloadType
        }
    }

    public init(id: String, producer: Producer, outgoingSSRC: UInt32, payloadType: UInt8, transport: any ConsumerTransport) {
        self.id = id
        self.producer = producer
        munger = RTPMunger(outgoingSSRC: outgoingSSRC, payloadType: payloadType)
        self.transport = transport
        if !producer.layers.isEmpty { selector = LayerSelector() }
        if producer.kind == .video {
            pictureMunger = VP8PictureMunger()
            temporalFilter = TemporalLayerFilter()
        }
        observer = producer.observer
        producer.attach(self)
    }

    deinit { retransmissionBuffer?.deallocate() }

    /// Resends lost packets on `stream` from now on (video only: audio is never resent).
    public func enableRetransmission(_ stream: Retransmission) {
        retransmission = stream
        if retransmissionBuffer == nil {
            retransmissionBuffer = .allocate(byteCount: PacketCache.slotSize + RTPRetransmission.originalSequenceSize, alignment: 8)
        }
    }

    /// Sets the simulcast layer the subscriber wants (nil: the highest available); the switch
    /// happens at the next keyframe of that layer.
    public func setPreferredLayer(_ layer: Int?) {
        guard selector != nil else { return }
        selector?.preferred = layer
        guard let producer else { return }
        producer.keyframeNeeded(layer: layer ?? producer.layers.count - 1, reason: .preferredLayer)
    }

    /// Sets the highest layer the subscriber's link carries (the stream allocator's choice; nil:
    /// no limit), and within it the highest VP8 temporal layer (nil: all); a change of layer
    /// takes effect at the next keyframe of the layer it leads to, one of temporal layer at the
    /// next frame that allows it (`TemporalLayerFilter`). When the link `overflows`, a move
    /// down stops the current layer at once (`LayerSelector.yieldCurrent`).
    public func setCeiling(_ layer: Int?, temporalLayer: Int? = nil, overflows: Bool = false) {
        temporalFilter?.ceiling = temporalLayer
        guard let producer, selector != nil, selector?.ceiling != layer else { return }
        selector?.ceiling = layer
        let flowing = producer.flowingLayers
        // Its packets not forwarded from now on leave no gap for the subscriber to ask about.
        if overflows, selector?.yieldCurrent(flowing: flowing) == true { munger.resync() }
        if let wanted = selector?.wanted(flowing: flowing), wanted != selector?.current {
            producer.keyframeNeeded(layer: wanted, reason: .allocation)
        }
    }

    /// - Parameter isKeyframeStart: whether the packet starts a keyframe; the producer parses
    ///   that at most once per packet, for whichever consumer asks first.
    /// - Parameter temporal: the packet's VP8 temporal layer, if its descriptor has one.
    func forward(_ packet: UnsafeRawBufferPointer, fields: RTPFixedFields, layer: Int, temporal: TemporalLayerFilter.Mark? = nil,
                 flowing: [Bool], payloadOffset: Int, now: PacketTime, isKeyframeStart: () -> Bool) {
        guard !isPaused else {
            observer?.dropped(.consumerPaused)
            return
        }
        var switched = false
        switch selector?.accept(layer: layer, flowing: flowing, isKeyframeStart: isKeyframeStart) {
        case .drop(let needsKeyframeOn):
            observer?.dropped(.layerNotSelected)
            if let needsKeyframeOn { producer?.keyframeNeeded(layer: needsKeyframeOn, reason: .layerSwitch, now: now) }
            return
        case .forward(let didSwitch):
            switched = didSwitch
        case nil:
            break
        }
        if munger.isLate(fields) {
            forwardLate(packet, fields: fields, payloadOffset: payloadOffset)
            return
        }
        // Where the packet sits in its frame, on a stream with frames to skip: what a gap before it held.
        let edges = temporal?.edges
        if let temporal, temporalFilter?.accept(temporal, timestamp: fields.timestamp, switched: switched) == false {
            // A frame above the temporal ceiling: the subscriber sees neither its sequence numbers nor its PictureID.
            observer?.dropped(.layerNotSelected)
            munger.drop(fields, edges: edges)
            pictureMunger?.skip(UnsafeRawBufferPointer(rebasing: packet[min(payloadOffset, packet.count)...]), source: fields.ssrc)
            return
        }
        deliver(packet, payloadOffset: payloadOffset) { out, payload in
            munger.rewrite(out, source: fields, edges: edges, now: now)
            if let payload { pictureMunger?.rewrite(payload, source: fields.ssrc) }
        }
    }

    /// Sends a copy of `packet` with its header (and VP8 payload) rewritten, and counts it.
    /// The copy may carry another extension block than `packet` (the server writes its own):
    /// `rewrite` gets its payload where it is in the copy.
    private func deliver(_ packet: UnsafeRawBufferPointer, payloadOffset: Int,
                         rewrite: (_ out: UnsafeMutableRawBufferPointer, _ payload: UnsafeMutableRawBufferPointer?) -> Void) {
        guard transport.send(packet, rewrite: { out in
            rewrite(out, RTPHeader.payloadStart(UnsafeRawBufferPointer(out)).map { UnsafeMutableRawBufferPointer(rebasing: out[$0...]) })
        }) else { return }
        packetsForwarded += 1
        octetsForwarded += max(0, packet.count - payloadOffset)
    }

    /// A packet older than the newest one forwarded from its source (resent by the publisher
    /// after the server's NACK, or reordered): it goes out as the number its gap left, or not
    /// at all when it left none here (a frame this consumer skipped, a packet it was sent).
    private func forwardLate(_ packet: UnsafeRawBufferPointer, fields: RTPFixedFields, payloadOffset: Int) {
        guard let (outgoing, origin) = munger.fillGap(with: fields) else {
            observer?.dropped(.duplicate)
            return
        }
        deliver(packet, payloadOffset: payloadOffset) { out, payload in
            munger.rewriteRetransmission(out, source: fields, outgoing: outgoing, origin: origin)
            if let payload { pictureMunger?.rewriteRetransmission(payload, source: fields.ssrc) }
        }
    }

    /// Outgoing numbers left unsent where the publisher's packets never reached the server.
    public var outgoingGaps: OutgoingGaps { munger.gaps }

    func translateSenderReport(source: UInt32, ntpTime: UInt64, rtpTime: UInt32) {
        guard !isPaused, munger.currentSource == source, packetsForwarded > 0 else { return }
        transport.sendSenderReport(ssrc: munger.outgoingSSRC, ntpTime: ntpTime, rtpTime: munger.outgoingTimestamp(for: rtpTime),
                                   packets: UInt32(truncatingIfNeeded: packetsForwarded), octets: UInt32(truncatingIfNeeded: octetsForwarded))
    }

    /// The subscriber reports lost packets (its sequence numbers): resend those still cached,
    /// as RTX packets when the subscriber negotiated RTX (RFC 4588), else as they were.
    /// - Returns: how many were resent.
    @discardableResult
    public func retransmit(_ lost: [UInt16], now: PacketTime = .now) -> Int {
        var resent = 0
        defer { observer?.retransmitted(requested: lost.count, answered: resent) }
        guard let producer, !producer.caches.isEmpty else {
            for _ in lost { observer?.dropped(.nackNotCached) }
            return 0
        }
        for outgoing in lost {
            guard let origin = munger.origin(ofOutgoing: outgoing),
                  producer.withCachedPacket(ssrc: origin.source, sequence: origin.sequenceNumber, now: now, { packet in
                      if resend(packet, outgoing: outgoing, origin: origin) { resent += 1 }
                  })
            else {
                observer?.dropped(.nackNotCached)
                continue
            }
        }
        return resent
    }

    /// Bytes of padding in one probe packet (RFC 3550 §5.1 allows up to 255).
    public static let paddingPerPacket = 255

    /// Sends `count` padding-only packets on the RTX stream (RFC 4588 §4; RFC 3550 §5.1
    /// padding): traffic that probes the subscriber's link and carries no media, which
    /// receivers drop. Nothing without an RTX stream, or before the first media packet.
    /// - Returns: the bytes sent (RTP header and padding).
    @discardableResult
    public func sendPadding(count: Int) -> Int {
        guard let retransmission, let buffer = retransmissionBuffer, munger.currentSource != nil else { return 0 }
        let length = RTPHeader.fixedSize + Self.paddingPerPacket
        var sent = 0
        for _ in 0..<count {
            let header = RTPHeader(padding: true, payloadType: retransmission.payloadType, sequenceNumber: retransmissionSequence,
                                   timestamp: munger.lastOutgoingTimestamp, ssrc: retransmission.ssrc)
            var bytes: [UInt8] = []
            header.serialize(into: &bytes)
            UnsafeMutableRawBufferPointer(rebasing: buffer[..<RTPHeader.fixedSize]).copyBytes(from: bytes)
            UnsafeMutableRawBufferPointer(rebasing: buffer[RTPHeader.fixedSize..<length]).initializeMemory(as: UInt8.self, repeating: 0)
            buffer[length - 1] = UInt8(Self.paddingPerPacket)
            retransmissionSequence &+= 1
            if transport.send(UnsafeRawBufferPointer(rebasing: buffer[..<length]), rewrite: { _ in }) { sent += length }
        }
        return sent
    }

    /// Whether it can send probes (`sendPadding`): its subscriber negotiated RTX.
    public var canProbe: Bool { retransmission != nil }

    /// Sends one cached packet again as the `outgoing` packet it was.
    private func resend(_ packet: UnsafeRawBufferPointer, outgoing: UInt16, origin: RTPMunger.Origin) -> Bool {
        let fields = RTPFixedFields(packet)
        guard let retransmission, let buffer = retransmissionBuffer else {
            return transport.sendRepair(packet) { out in
                munger.rewriteRetransmission(out, source: fields, outgoing: outgoing, origin: origin)
                if let start = RTPHeader.payloadStart(UnsafeRawBufferPointer(out)) {
                    pictureMunger?.rewriteRetransmission(UnsafeMutableRawBufferPointer(rebasing: out[start...]), source: origin.source)
                }
            }
        }
        guard let payload = try? RTPHeader.parse(packet).payload,
              let length = RTPRetransmission.wrap(packet, payload: payload, into: buffer, ssrc: retransmission.ssrc,
                                                  payloadType: retransmission.payloadType, sequenceNumber: retransmissionSequence,
                                                  originalSequence: outgoing, timestamp: fields.timestamp &+ origin.timestampOffset)
        else { return false }
        // The original payload follows the RTX header and the OSN (RFC 4588 §4).
        pictureMunger?.rewriteRetransmission(
            UnsafeMutableRawBufferPointer(rebasing: buffer[(payload.lowerBound + RTPRetransmission.originalSequenceSize)..<length]),
            source: origin.source)
        retransmissionSequence &+= 1
        return transport.sendRepair(UnsafeRawBufferPointer(rebasing: buffer[..<length])) { _ in }
    }

    /// The subscriber needs a keyframe (it sent a PLI/FIR, or its transport just connected): of
    /// the layer it receives or is switching to.
    public func requestKeyframe(reason: KeyframeRequestReason = .subscriberRequest) {
        guard let producer else { return }
        guard let selector else { return producer.keyframeNeeded(reason: reason) }
        // A simulcast consumer has a layer in mind; before its first switch, the highest.
        producer.keyframeNeeded(layer: selector.target ?? selector.current ?? producer.layers.count - 1, reason: reason)
    }

    /// Moves to the producer of a reconnected publisher, keeping the preferred layer by its rid
    /// (the new offer may list its layers in another order, or fewer: a rid it lacks means no
    /// preference, the highest layer), and the allocator's ceiling by its rid too (a rid it
    /// lacks: the lowest layer, until the next allocation — a narrow link is not sent the top
    /// layer meanwhile). The publisher's session asks for keyframes when its new connection is up.
    func rebind(to successor: Producer) {
        let rid = { (index: Int?) in index.flatMap { index in self.producer.flatMap { $0.layers.indices.contains(index) ? $0.layers[index] : nil } } }
        let preferredRID = rid(selector?.preferred)
        let oldCeiling = selector?.ceiling
        let ceilingRID = rid(oldCeiling)
        producer = successor
        observer = successor.observer
        selector = successor.layers.isEmpty ? nil : LayerSelector(preferred: preferredRID.flatMap { successor.layers.firstIndex(of: $0) })
        if let oldCeiling, selector != nil {
            selector?.ceiling = oldCeiling < 0 ? oldCeiling : ceilingRID.flatMap { successor.layers.firstIndex(of: $0) } ?? 0
        }
        successor.attach(self)
    }

    public func close() {
        producer?.detach(self)
        producer = nil
    }

    /// Its producer skipped packets on purpose (a mute): continue the numbering without a gap.
    func resync() { munger.resync() }

    func producerClosed() {
        producer = nil
        transport.producerClosed(for: self)
    }
}
