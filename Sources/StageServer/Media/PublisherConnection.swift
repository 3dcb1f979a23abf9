import StageProtocol
import StageSFU
import StageWire
import NIOCore
import StageTransport

/// A participant's publish peer connection: its producers, one per media section, and the
/// routes of its incoming RTP to them (`IncomingRoutes`).
/// Lives on the media engine's event loop; its feedback timers run there too and reach it through
/// `NIOLoopBound`.
final class PublisherConnection: MediaPeerDelegate {
    let id: String
    let participantId: String
    let stageId: String
    let peer: MediaPeer
    let offer: RemoteOffer
    /// mid → producer.
    private(set) var producers: [String: Producer] = [:]
    private var routes = IncomingRoutes()
    /// The connection ended; called before its producers close, so their subscribers can still
    /// be handed to a successor.
    var onClose: ((PublisherConnection) -> Void)?
    /// Media connected (DTLS done): the participant now publishes.
    var onConnect: ((PublisherConnection) -> Void)?
    /// The earlier connection of the same participant that this one replaces once it connects
    /// (its media keeps flowing until then), if any.
    var replacing: PublisherConnection?
    static let senderSSRC: UInt32 = 1
    /// Dynacast: per simulcast video section (mid), the layers the publisher should send.
    private var layerActivity: [String: LayerActivity] = [:]
    /// Tells the publisher which layers of one of its streams to send (signaling `publishLayers`);
    /// nil: dynacast is off.
    var onPublishLayers: ((_ streamId: String, _ rids: [String]) -> Void)?
    /// Transport-cc feedback, where the publisher negotiated it.
    private let transportFeedback: TransportFeedbackSender?
    /// What the publisher may send (its REMB), from the loss on its streams; a publisher with
    /// transport-cc estimates for itself and is told the ceiling.
    private var uplink = UplinkEstimator()

    /// - Parameter requestsRetransmission: NACK the publisher for what was lost on the way in
    ///   (RFC 4585 §6.2.1), where its offer allows; false only as a benchmark's reference.
    init(id: String, participantId: String, stageId: String, peer: MediaPeer, offer: RemoteOffer, requestsRetransmission: Bool = true) {
        self.id = id
        self.participantId = participantId
        self.stageId = stageId
        self.peer = peer
        self.offer = offer
        transportFeedback = TransportFeedbackSender(offer: offer)
        for section in offer.sections where section.direction == .sendonly || section.direction == .sendrecv {
            let ridExtension = section.extensions[RTPExtensionURI.rtpStreamID].map { UInt8(truncatingIfNeeded: $0) }
            let layers = ridExtension == nil ? [] : section.sendRIDs
            let producer = Producer(id: "\(participantId):\(section.mid)", kind: section.kind,
                                    layers: layers, observer: MediaMetrics.shared) { [weak peer] ssrc in
                guard let peer else { return }
                let sent = RTCPFeedback.pictureLossIndication(sender: Self.senderSSRC, media: ssrc).withUnsafeBytes { peer.sendRTCP($0) }
                if sent { MediaMetrics.shared.plisSent.increment() }
            }
            producers[section.mid] = producer
            if producer.kind == .video, layers.count > 1 { layerActivity[section.mid] = LayerActivity(layerCount: layers.count) }
            if let ridExtension, !layers.isEmpty {
                routes.addSimulcast(producer, ridExtension: ridExtension)
            } else {
                for ssrc in section.ssrcs where section.retransmissionSSRCs[ssrc] == nil { routes.addMedia(ssrc: ssrc, to: producer) }
                routes.addPayloadType(section.codec.payloadType, to: producer)
            }
            if let rtx = section.retransmissionPayloadType {
                let repairedRID = section.extensions[RTPExtensionURI.repairedRTPStreamID].map { UInt8(truncatingIfNeeded: $0) }
                routes.addRetransmission(payloadType: rtx, repairing: producer, mediaPayloadType: section.codec.payloadType,
                                         repairedRIDExtension: repairedRID)
                for (rtxSSRC, mediaSSRC) in section.retransmissionSSRCs {
                    routes.addRetransmission(ssrc: rtxSSRC, repairing: mediaSSRC, of: producer, mediaPayloadType: section.codec.payloadType)
                }
            }
            if requestsRetransmission, section.kind == .video, section.feedback.contains(where: { $0.type == "nack" && $0.parameter == nil }) {
                producer.requestRetransmission = { [weak peer] ssrc, lost in
                    let nack = RTCPFeedback.genericNACK(sender: Self.senderSSRC, media: ssrc, lost: lost)
                    _ = nack.withUnsafeBytes { peer?.sendRTCP($0) }
                }
                producer.onUpstreamLoss = { [weak self] in self?.scheduleLossCheck() }
            }
        }
        peer.delegate = self
    }

    func producer(kind: MediaKind) -> Producer? { producers.values.first { $0.kind == kind } }

    /// The signaling stream id of one of its producers (its section's track id, or its mid).
    func streamId(of producer: Producer) -> String {
        guard let mid = producers.first(where: { $0.value === producer })?.key else { return producer.id }
        return offer.sections.first { $0.mid == mid }.flatMap(\.trackID) ?? mid
    }

    /// The sending sections that have a producer, in offer order, for `PublisherHandOver`.
    var tracks: [PublisherHandOver.Track] {
        offer.sections.filter { producers[$0.mid] != nil }.map { .init(mid: $0.mid, kind: $0.kind, trackID: $0.trackID) }
    }

    /// Hands the subscribers of this connection's producers to `successor`'s, track by track.
    func handOver(to successor: PublisherConnection) {
        for (mid, successorMid) in PublisherHandOver.successors(of: tracks, in: successor.tracks) {
            guard let producer = producers[mid], let next = successor.producers[successorMid] else { continue }
            producer.handOver(to: next)
        }
    }

    func peerDidConnect(_ peer: MediaPeer) {
        for producer in producers.values { producer.keyframeNeeded(reason: .publisherConnected) }
        onConnect?(self)
        transportFeedback?.start(on: peer, sender: Self.senderSSRC)
        guard let loop = peer.eventLoop else { return }
        // The delegate is called on the engine's loop, where the task runs too.
        let weak = NIOLoopBound(WeakConnection(connection: self), eventLoop: loop)
        feedbackTask = loop.scheduleRepeatedTask(initialDelay: .milliseconds(200), delay: .seconds(1)) { _ in
            weak.value.connection?.sendFeedback()
        }
    }

    /// Sends receiver reports and REMB (`sendFeedback`).
    private var feedbackTask: RepeatedTask?
    /// The next `checkUpstreamLoss` round, while a producer repairs upstream loss (none on a clean link).
    private var lossCheck: Scheduled<Void>?

    /// A producer found a gap: check every `Producer.lossCheckInterval` until all are repaired
    /// or given up.
    private func scheduleLossCheck() {
        guard lossCheck == nil, let loop = peer.eventLoop else { return }
        let weak = NIOLoopBound(WeakConnection(connection: self), eventLoop: loop)
        lossCheck = loop.scheduleTask(in: TimeAmount(Producer.lossCheckInterval)) {
            guard let connection = weak.value.connection else { return }
            connection.lossCheck = nil
            let now = PacketTime.now
            for producer in connection.producers.values where producer.isRepairingUpstreamLoss { producer.checkUpstreamLoss(now: now) }
            if connection.producers.values.contains(where: \.isRepairingUpstreamLoss) { connection.scheduleLossCheck() }
        }
    }

    /// Lets the feedback tasks end with the connection instead of keeping it alive.
    private struct WeakConnection { weak var connection: PublisherConnection? }

    /// Once a second: each producer's layer bitrates are measured (for the subscribers' stream
    /// allocators), and the publisher gets, in one compound packet, a receiver report on every
    /// stream it sends (RFC 3550 §6.4.2: loss, jitter, LSR/DLSR) and how much it may send (REMB,
    /// from `uplink`; senders that negotiated goog-remb keep under it).
    private func sendFeedback() {
        let now = PacketTime.now
        for producer in producers.values { producer.measureLayerRates(now: now) }
        updateLayerActivity(now: now)
        let media = routes.mediaStreams
        // The loss of the second gone, each stream weighted by its bitrate.
        var blocks: [RTCPReceptionReport] = [], weightedLoss = 0.0, received = 0
        for route in media {
            guard let block = route.stream.reportBlock(now: now) else { continue }
            blocks.append(block)
            let bitrate = route.producer.layerBitrates.indices.contains(route.layer) ? route.producer.layerBitrates[route.layer] : 0
            weightedLoss += Double(block.fractionLost) / 256 * Double(bitrate)
            received += bitrate
        }
        if transportFeedback == nil, received > 0 {
            let before = uplink.estimate
            uplink.update(receivedBitrate: received, fractionLost: weightedLoss / Double(received))
            if uplink.estimate < before {
                ServerLog.media.info("publisher's uplink is full: its REMB is cut", metadata: [
                    "participant": "\(participantId)", "loss": "\(Int(100 * weightedLoss / Double(received))) %",
                    "received": "\(received / 1000) kbps", "remb": "\(uplink.estimate / 1000) kbps"])
            }
        }
        let video = media.filter { $0.producer.kind == .video }.map(\.ssrc)
        guard !blocks.isEmpty || !video.isEmpty else { return }
        RTCPFeedback.receiverFeedback(sender: Self.senderSSRC, reports: blocks, bitsPerSecond: UInt64(uplink.estimate), estimateSSRCs: video)
            .withUnsafeBytes { _ = peer.sendRTCP($0) }
    }

    /// Dynacast, once a second: which simulcast layers subscribers want; when that changes, the
    /// publisher is told, and the producer remembers which layers it paused (their last bitrate
    /// stays on offer to the subscribers' allocators, and choosing one resumes it).
    private func updateLayerActivity(now: PacketTime) {
        guard let onPublishLayers else { return }
        for (mid, var activity) in layerActivity {
            guard let producer = producers[mid] else { continue }
            let changed = activity.update(wanted: producer.layersInUse(), now: now)
            layerActivity[mid] = activity
            guard let enabled = changed else { continue }
            for (index, on) in enabled.enumerated() where producer.pausedByPublisher.indices.contains(index) && producer.pausedByPublisher[index] == on {
                (on ? MediaMetrics.shared.layersResumed : MediaMetrics.shared.layersPaused).increment()
            }
            producer.setPublisherLayers(enabled: enabled, now: now)
            let streamId = offer.sections.first { $0.mid == mid }.flatMap(\.trackID) ?? mid
            onPublishLayers(streamId, zip(producer.layers, enabled).filter(\.1).map(\.0))
        }
    }

    /// The published streams as signaling describes them: one per sending media section.
    var streams: [StreamDescriptor] {
        offer.sections.filter { producers[$0.mid] != nil }.map {
            StreamDescriptor(streamId: $0.trackID ?? $0.mid, kind: $0.kind == .audio ? .audio : .video)
        }
    }

    func peer(_ peer: MediaPeer, didReceiveRTP packet: UnsafeMutableRawBufferPointer) {
        guard let (header, payload) = try? RTPHeader.parse(UnsafeRawBufferPointer(packet)) else {
            return MediaDropReason.malformedRTP.count()
        }
        let now = PacketTime.now
        transportFeedback?.received(header, packet: UnsafeRawBufferPointer(packet), now: now)
        switch routes.route(header, in: UnsafeRawBufferPointer(packet)) {
        case .media(let producer, let layer, let stream):
            stream.received(header, now: now)
            producer.receive(packet, fields: RTPFixedFields(header), layer: layer, payloadOffset: payload.lowerBound, now: now)
        case .repair(let producer, let layer, let originalSSRC, let originalPayloadType):
            // RTX: restored in place to the packet it repairs, which then goes the usual way.
            guard let range = RTPRetransmission.unwrap(packet, payload: payload, originalSSRC: originalSSRC,
                                                       originalPayloadType: originalPayloadType)
            else { return MediaDropReason.retransmissionNotForwarded.count() }
            let original = UnsafeMutableRawBufferPointer(rebasing: packet[range])
            guard let (originalHeader, originalPayload) = try? RTPHeader.parse(UnsafeRawBufferPointer(original)) else {
                return MediaDropReason.malformedRTP.count()
            }
            MediaMetrics.shared.retransmissionsReceived.increment()
            producer.receive(original, fields: RTPFixedFields(originalHeader), layer: layer, payloadOffset: originalPayload.lowerBound, now: now)
        case .dropped(let reason):
            reason.count()
        }
    }

    func peer(_ peer: MediaPeer, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) {
        for report in RTCPFeedback.senderReports(in: UnsafeRawBufferPointer(packet)) {
            guard let route = routes.route(ssrc: report.ssrc) else {
                MediaDropReason.unknownSSRC.count()
                continue
            }
            // An RTX stream's report: its timeline is the media stream's, already reported.
            guard case .media(let stream) = route.stream else { continue }
            stream.senderReport(report, now: .now)
            route.producer.senderReport(ssrc: report.ssrc, ntpTime: report.ntpTime, rtpTime: report.rtpTime)
        }
    }

    /// The publisher muted or unmuted one of its streams (signaling `mute`): a muted track is
    /// not forwarded.
    func setMuted(streamId: String, muted: Bool) {
        for section in offer.sections where (section.trackID ?? section.mid) == streamId {
            producers[section.mid]?.isMuted = muted
        }
    }

    func peerDidClose(_ peer: MediaPeer, reason: String) {
        ServerLog.media.info("publish connection closed", metadata: ["participant": "\(participantId)", "stage": "\(stageId)",
                                                                 "resource": "\(id)", "reason": "\(reason)"])
        feedbackTask?.cancel()
        transportFeedback?.stop()
        lossCheck?.cancel()
        onClose?(self)
        for producer in producers.values { producer.close() }
    }
}
