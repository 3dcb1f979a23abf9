import StageProtocol
import StageSFU
import StageWire
import NIOCore
import StageTransport

/// A participant's publish peer connection: its producers, one per media section, and the
/// mapping from incoming SSRC (or payload type, for senders that signal no SSRC) to producer.
/// Lives on the media engine's event loop; its REMB timer runs there too and reaches it through
/// `NIOLoopBound`.
final class PublisherSession: MediaPeerDelegate {
    let id: String
    let participantId: String
    let stageId: String
    let peer: MediaPeer
    let offer: RemoteOffer
    /// mid → producer.
    private(set) var producers: [String: Producer] = [:]
    /// Where packets of a known SSRC go: producer and simulcast layer.
    private var bySSRC: [UInt32: (producer: Producer, layer: Int)] = [:]
    private var byPayloadType: [UInt8: Producer] = [:]
    /// rid header-extension id → (producer, its rids), for simulcast senders that signal no SSRC.
    private var simulcastByMid: [String: (producer: Producer, ridExtension: UInt8)] = [:]
    private var retransmissionPayloadTypes: Set<UInt8> = []
    /// The session ended; called before its producers close, so their subscribers can still
    /// be handed to a successor.
    var onClose: ((PublisherSession) -> Void)?
    /// Media connected (DTLS done): the participant now publishes.
    var onConnect: ((PublisherSession) -> Void)?
    /// The earlier session of the same participant that this one replaces once it connects
    /// (its media keeps flowing until then), if any.
    var replacing: PublisherSession?
    static let senderSSRC: UInt32 = 1

    init(id: String, participantId: String, stageId: String, peer: MediaPeer, offer: RemoteOffer) {
        self.id = id
        self.participantId = participantId
        self.stageId = stageId
        self.peer = peer
        self.offer = offer
        for section in offer.sections where section.direction == .sendonly || section.direction == .sendrecv {
            let ridExtension = section.extensions[RTPExtensionURI.rtpStreamID].map { UInt8(truncatingIfNeeded: $0) }
            let layers = ridExtension == nil ? [] : section.sendRIDs
            let producer = Producer(id: "\(participantId):\(section.mid)", kind: MediaKind(section.kind),
                                    layers: layers, observer: MediaMetrics.shared) { [weak peer] ssrc in
                guard let peer else { return }
                let sent = RTCPFeedback.pictureLossIndication(sender: Self.senderSSRC, media: ssrc).withUnsafeBytes { peer.sendRTCP($0) }
                if sent { MediaMetrics.shared.plisSent.increment() }
            }
            producers[section.mid] = producer
            if let ridExtension, !layers.isEmpty {
                simulcastByMid[section.mid] = (producer, ridExtension)
            } else {
                for ssrc in section.ssrcs { bySSRC[ssrc] = (producer, 0) }
                byPayloadType[section.codec.payloadType] = producer
            }
            if let rtx = section.retransmissionPayloadType { retransmissionPayloadTypes.insert(rtx) }
        }
        peer.delegate = self
    }

    func producer(kind: MediaKind) -> Producer? { producers.values.first { $0.kind == kind } }

    /// The sending sections that have a producer, in offer order, for `PublisherHandOver`.
    var tracks: [PublisherHandOver.Track] {
        offer.sections.filter { producers[$0.mid] != nil }.map { .init(mid: $0.mid, kind: MediaKind($0.kind), trackID: $0.trackID) }
    }

    /// Hands the subscribers of this session's producers to `successor`'s, track by track.
    func handOver(to successor: PublisherSession) {
        for (mid, successorMid) in PublisherHandOver.successors(of: tracks, in: successor.tracks) {
            guard let producer = producers[mid], let next = successor.producers[successorMid] else { continue }
            producer.handOver(to: next)
        }
    }

    /// The incoming bitrate each publisher may use, advertised with REMB once a second.
    static let maxIncomingBitrate: UInt64 = 6_000_000

    func peerDidConnect(_ peer: MediaPeer) {
        for producer in producers.values { producer.keyframeNeeded(reason: .publisherConnected) }
        onConnect?(self)
        guard let loop = peer.eventLoop else { return }
        // The delegate is called on the engine's loop, where the task runs too.
        let session = NIOLoopBound(WeakSession(session: self), eventLoop: loop)
        rembTask = loop.scheduleRepeatedTask(initialDelay: .milliseconds(200), delay: .seconds(1)) { _ in
            session.value.session?.advertiseBitrate()
        }
    }

    private var rembTask: RepeatedTask?

    /// Lets the REMB task end with the session instead of keeping it alive.
    private struct WeakSession { weak var session: PublisherSession? }

    /// Tells the publisher how much it may send (senders that negotiated goog-remb ramp up to it).
    private func advertiseBitrate() {
        let ssrcs = bySSRC.filter { $0.value.producer.kind == .video }.map(\.key).sorted()
        guard !ssrcs.isEmpty else { return }
        RTCPFeedback.receiverEstimatedMaximumBitrate(sender: Self.senderSSRC, bitsPerSecond: Self.maxIncomingBitrate, ssrcs: ssrcs)
            .withUnsafeBytes { _ = peer.sendRTCP($0) }
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
        let route: (producer: Producer, layer: Int)
        if let known = bySSRC[header.ssrc] {
            route = known
        } else {
            if retransmissionPayloadTypes.contains(header.payloadType) { return MediaDropReason.retransmissionNotForwarded.count() }
            guard let learned = learnRoute(header, packet: UnsafeRawBufferPointer(packet)) else { return }
            bySSRC[header.ssrc] = learned
            route = learned
        }
        route.producer.receive(packet, fields: RTPFixedFields(header), layer: route.layer, payloadOffset: payload.lowerBound)
    }

    /// An SSRC the offer did not list: a simulcast layer named by its rid header extension
    /// (RFC 8852), or a plain track recognised by its payload type.
    private func learnRoute(_ header: RTPHeader, packet: UnsafeRawBufferPointer) -> (producer: Producer, layer: Int)? {
        for (producer, ridExtension) in simulcastByMid.values {
            guard let range = header.extensionValueRange(id: ridExtension, in: packet) else { continue }
            let rid = String(decoding: packet[range], as: UTF8.self)
            guard let layer = producer.layers.firstIndex(of: rid) else {
                MediaDropReason.unknownRID.count()
                return nil
            }
            return (producer, layer)
        }
        guard let producer = byPayloadType[header.payloadType] else {
            MediaDropReason.unknownSSRC.count()
            return nil
        }
        return (producer, 0)
    }

    func peer(_ peer: MediaPeer, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) {
        for report in RTCPFeedback.senderReports(in: UnsafeRawBufferPointer(packet)) {
            guard let producer = bySSRC[report.ssrc]?.producer else {
                MediaDropReason.unknownSSRC.count()
                continue
            }
            producer.senderReport(ssrc: report.ssrc, ntpTime: report.ntpTime, rtpTime: report.rtpTime)
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
        rembTask?.cancel()
        onClose?(self)
        for producer in producers.values { producer.close() }
    }
}

extension MediaKind {
    /// The kind of an offer's media section.
    init(_ kind: RemoteOffer.StreamKindName) {
        switch kind {
        case .audio: self = .audio
        case .video: self = .video
        }
    }
}
