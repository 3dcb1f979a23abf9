import StageProtocol
import StageSFU
import StageWire
import NIOCore
import StageTransport

/// A participant's publish peer connection: its producers, one per media section, and the
/// mapping from incoming SSRC (or payload type, for senders that signal no SSRC) to producer.
/// Lives on the media engine's event loop; its feedback timers run there too and reach it through
/// `NIOLoopBound`.
final class PublisherSession: MediaPeerDelegate {
    let id: String
    let participantId: String
    let stageId: String
    let peer: MediaPeer
    let offer: RemoteOffer
    /// mid → producer.
    private(set) var producers: [String: Producer] = [:]
    /// Where packets of a known SSRC go.
    private var bySSRC: [UInt32: Route] = [:]
    private var byPayloadType: [UInt8: Producer] = [:]
    /// rid header-extension id → (producer, its rids), for simulcast senders that signal no SSRC.
    private var simulcastByMid: [String: (producer: Producer, ridExtension: UInt8)] = [:]
    /// RTX payload type → the producer it repairs, its media payload type (`apt`) and the
    /// repaired-rid extension id that names the layer (RFC 8852), if negotiated.
    private var retransmissionByPayloadType: [UInt8: (producer: Producer, payloadType: UInt8, repairedRIDExtension: UInt8?)] = [:]
    /// The session ended; called before its producers close, so their subscribers can still
    /// be handed to a successor.
    var onClose: ((PublisherSession) -> Void)?
    /// Media connected (DTLS done): the participant now publishes.
    var onConnect: ((PublisherSession) -> Void)?
    /// The earlier session of the same participant that this one replaces once it connects
    /// (its media keeps flowing until then), if any.
    var replacing: PublisherSession?
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
                simulcastByMid[section.mid] = (producer, ridExtension)
            } else {
                for ssrc in section.ssrcs where section.retransmissionSSRCs[ssrc] == nil {
                    bySSRC[ssrc] = Route(producer: producer, layer: 0, stream: IncomingStream(ssrc: ssrc, kind: section.kind))
                }
                byPayloadType[section.codec.payloadType] = producer
            }
            if let rtx = section.retransmissionPayloadType {
                let repairedRID = section.extensions[RTPExtensionURI.repairedRTPStreamID].map { UInt8(truncatingIfNeeded: $0) }
                retransmissionByPayloadType[rtx] = (producer, section.codec.payloadType, repairedRID)
                for (rtxSSRC, mediaSSRC) in section.retransmissionSSRCs {
                    bySSRC[rtxSSRC] = Route(producer: producer, layer: 0,
                                            repair: .init(mediaSSRC: mediaSSRC, payloadType: section.codec.payloadType))
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

    /// Where one incoming SSRC's packets go: a producer and its simulcast layer, and for an RTX
    /// stream (RFC 4588) what it repairs.
    private struct Route {
        var producer: Producer
        var layer: Int
        var repair: Repair?
        /// A media stream's reception statistics (nil for an RTX stream).
        var stream: IncomingStream?

        struct Repair {
            /// The media SSRC, when signaled (`a=ssrc-group:FID`); else the layer's, once seen.
            var mediaSSRC: UInt32?
            var payloadType: UInt8
        }
    }

    func producer(kind: MediaKind) -> Producer? { producers.values.first { $0.kind == kind } }

    /// The sending sections that have a producer, in offer order, for `PublisherHandOver`.
    var tracks: [PublisherHandOver.Track] {
        offer.sections.filter { producers[$0.mid] != nil }.map { .init(mid: $0.mid, kind: $0.kind, trackID: $0.trackID) }
    }

    /// Hands the subscribers of this session's producers to `successor`'s, track by track.
    func handOver(to successor: PublisherSession) {
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
        let session = NIOLoopBound(WeakSession(session: self), eventLoop: loop)
        feedbackTask = loop.scheduleRepeatedTask(initialDelay: .milliseconds(200), delay: .seconds(1)) { _ in
            session.value.session?.sendFeedback()
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
        let session = NIOLoopBound(WeakSession(session: self), eventLoop: loop)
        lossCheck = loop.scheduleTask(in: TimeAmount(Producer.lossCheckInterval)) {
            guard let session = session.value.session else { return }
            session.lossCheck = nil
            let now = PacketTime.now
            for producer in session.producers.values where producer.isRepairingUpstreamLoss { producer.checkUpstreamLoss(now: now) }
            if session.producers.values.contains(where: \.isRepairingUpstreamLoss) { session.scheduleLossCheck() }
        }
    }

    /// Lets the feedback tasks end with the session instead of keeping it alive.
    private struct WeakSession { weak var session: PublisherSession? }

    /// Once a second: each producer's layer bitrates are measured (for the subscribers' stream
    /// allocators), and the publisher gets, in one compound packet, a receiver report on every
    /// stream it sends (RFC 3550 §6.4.2: loss, jitter, LSR/DLSR) and how much it may send (REMB,
    /// from `uplink`; senders that negotiated goog-remb keep under it).
    private func sendFeedback() {
        let now = PacketTime.now
        for producer in producers.values { producer.measureLayerRates(now: now) }
        updateLayerActivity(now: now)
        let media = bySSRC.filter { $0.value.repair == nil }.sorted { $0.key < $1.key }
        // The loss of the second gone, each stream weighted by its bitrate.
        var blocks: [RTCPReceptionReport] = [], weightedLoss = 0.0, received = 0
        for (_, route) in media {
            guard let block = route.stream?.reportBlock(now: now) else { continue }
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
        let video = media.filter { $0.value.producer.kind == .video }.map(\.key)
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
        let route: Route
        if let known = bySSRC[header.ssrc] {
            route = known
        } else {
            guard let learned = learnRoute(header, packet: UnsafeRawBufferPointer(packet)) else { return }
            bySSRC[header.ssrc] = learned
            route = learned
        }
        guard let repair = route.repair else {
            route.stream?.received(header, now: now)
            return route.producer.receive(packet, fields: RTPFixedFields(header), layer: route.layer, payloadOffset: payload.lowerBound, now: now)
        }
        // RTX: restored in place to the packet it repairs, which then goes the usual way.
        guard let mediaSSRC = repair.mediaSSRC ?? route.producer.ssrc(ofLayer: route.layer),
              let range = RTPRetransmission.unwrap(packet, payload: payload, originalSSRC: mediaSSRC, originalPayloadType: repair.payloadType)
        else { return MediaDropReason.retransmissionNotForwarded.count() }
        let original = UnsafeMutableRawBufferPointer(rebasing: packet[range])
        guard let (originalHeader, originalPayload) = try? RTPHeader.parse(UnsafeRawBufferPointer(original)) else {
            return MediaDropReason.malformedRTP.count()
        }
        MediaMetrics.shared.retransmissionsReceived.increment()
        route.producer.receive(original, fields: RTPFixedFields(originalHeader), layer: route.layer, payloadOffset: originalPayload.lowerBound,
                               now: now)
    }

    /// An SSRC the offer did not list: a simulcast layer named by its rid header extension
    /// (RFC 8852), its RTX stream named by the repaired-rid extension, or a plain track
    /// recognised by its payload type.
    private func learnRoute(_ header: RTPHeader, packet: UnsafeRawBufferPointer) -> Route? {
        if let rtx = retransmissionByPayloadType[header.payloadType] {
            guard let id = rtx.repairedRIDExtension, let range = header.extensionValueRange(id: id, in: packet),
                  let layer = rtx.producer.layers.firstIndex(of: String(decoding: packet[range], as: UTF8.self)) else {
                MediaDropReason.retransmissionNotForwarded.count()
                return nil
            }
            return Route(producer: rtx.producer, layer: layer, repair: .init(mediaSSRC: nil, payloadType: rtx.payloadType))
        }
        for (producer, ridExtension) in simulcastByMid.values {
            guard let range = header.extensionValueRange(id: ridExtension, in: packet) else { continue }
            let rid = String(decoding: packet[range], as: UTF8.self)
            guard let layer = producer.layers.firstIndex(of: rid) else {
                MediaDropReason.unknownRID.count()
                return nil
            }
            return Route(producer: producer, layer: layer, stream: IncomingStream(ssrc: header.ssrc, kind: .video))
        }
        guard let producer = byPayloadType[header.payloadType] else {
            MediaDropReason.unknownSSRC.count()
            return nil
        }
        return Route(producer: producer, layer: 0, stream: IncomingStream(ssrc: header.ssrc, kind: producer.kind))
    }

    func peer(_ peer: MediaPeer, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) {
        for report in RTCPFeedback.senderReports(in: UnsafeRawBufferPointer(packet)) {
            guard let route = bySSRC[report.ssrc] else {
                MediaDropReason.unknownSSRC.count()
                continue
            }
            // An RTX stream's report: its timeline is the media stream's, already reported.
            guard route.repair == nil else { continue }
            route.stream?.senderReport(report, now: .now)
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
        ServerLog.media.info("publish session closed", metadata: ["participant": "\(participantId)", "stage": "\(stageId)",
                                                                 "resource": "\(id)", "reason": "\(reason)"])
        feedbackTask?.cancel()
        transportFeedback?.stop()
        lossCheck?.cancel()
        onClose?(self)
        for producer in producers.values { producer.close() }
    }
}
