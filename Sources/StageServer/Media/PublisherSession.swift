import StageProtocol
import StageSFU
import StageTransport

/// A participant's publish peer connection: its producers, one per media section, and the
/// mapping from incoming SSRC (or payload type, for senders that signal no SSRC) to producer.
final class PublisherSession: MediaPeerDelegate {
    let id: String
    let participantId: String
    let stageId: String
    let peer: MediaPeer
    let offer: RemoteOffer
    /// mid → producer.
    private(set) var producers: [String: Producer] = [:]
    private var bySSRC: [UInt32: Producer] = [:]
    private var byPayloadType: [UInt8: Producer] = [:]
    var onClose: ((PublisherSession) -> Void)?
    /// Media connected (DTLS done): the participant now publishes.
    var onConnect: ((PublisherSession) -> Void)?
    static let senderSSRC: UInt32 = 1

    init(id: String, participantId: String, stageId: String, peer: MediaPeer, offer: RemoteOffer) {
        self.id = id
        self.participantId = participantId
        self.stageId = stageId
        self.peer = peer
        self.offer = offer
        for section in offer.sections where section.direction == .sendonly || section.direction == .sendrecv {
            let producer = Producer(id: "\(participantId):\(section.mid)", kind: section.kind == .audio ? .audio : .video) { [weak peer] ssrc in
                guard let peer else { return }
                RTCPFeedback.pictureLossIndication(sender: Self.senderSSRC, media: ssrc).withUnsafeBytes { _ = peer.sendRTCP($0) }
            }
            producers[section.mid] = producer
            for ssrc in section.ssrcs { bySSRC[ssrc] = producer }
            byPayloadType[section.codec.payloadType] = producer
        }
        peer.delegate = self
    }

    func producer(kind: MediaKind) -> Producer? { producers.values.first { $0.kind == kind } }

    func peerDidConnect(_ peer: MediaPeer) {
        for producer in producers.values { producer.keyframeNeeded() }
        onConnect?(self)
    }

    /// The published streams as signaling describes them: one per sending media section.
    var streams: [StreamDescriptor] {
        offer.sections.filter { producers[$0.mid] != nil }.map {
            StreamDescriptor(streamId: $0.trackID ?? $0.mid, kind: $0.kind == .audio ? .audio : .video)
        }
    }

    func peer(_ peer: MediaPeer, didReceiveRTP packet: UnsafeMutableRawBufferPointer) {
        guard packet.count >= 12 else { return MediaDropReason.malformedRTP.count() }
        let ssrc = UInt32(packet[8]) << 24 | UInt32(packet[9]) << 16 | UInt32(packet[10]) << 8 | UInt32(packet[11])
        if let producer = bySSRC[ssrc] { return producer.receive(packet) }
        // A sender that did not signal its SSRC: bind it by payload type, once (RTX is not forwarded yet).
        guard let producer = byPayloadType[packet[1] & 0x7F] else { return MediaDropReason.unknownSSRC.count() }
        bySSRC[ssrc] = producer
        producer.receive(packet)
    }

    func peer(_ peer: MediaPeer, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) {
        // Sender reports: kept for lip-sync translation (not yet forwarded).
    }

    func peerDidClose(_ peer: MediaPeer, reason: String) {
        for producer in producers.values { producer.close() }
        onClose?(self)
    }
}
