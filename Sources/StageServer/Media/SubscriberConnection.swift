import StageCongestion
import StageSFU
import StageTransport

/// A subscribe peer connection (WHEP): one consumer per media section it receives, and the
/// subscriber's RTCP feedback turned into keyframe requests towards the publisher.
final class SubscriberConnection: MediaPeerDelegate {
    let id: String
    /// The participant whose token created it: the only one who may change or delete it.
    let ownerId: String
    let stageId: String
    let peer: MediaPeer
    /// outgoing SSRC → consumer.
    private(set) var consumers: [UInt32: Consumer] = [:]
    var onClose: ((SubscriberConnection) -> Void)?
    /// Fits the layers it receives to its link (nil: adaptation is off).
    let adaptation: DownlinkAdaptation?

    /// Whether its NACKs are answered (false only as a benchmark's reference).
    let answersNACKs: Bool
    /// Spreads its video's bursts at a multiple of its downlink estimate (nil without adaptation: no estimate).
    let pacer: SubscriberPacer?

    /// - Parameter sendHistory: the transport-wide numbering of what it is sent, when it negotiated transport-cc.
    /// - Parameter paced: whether its video is paced (with `adaptsToDownlink`: the pacing rate follows the estimate).
    init(id: String, ownerId: String, stageId: String, peer: MediaPeer, adaptsToDownlink: Bool = true, answersNACKs: Bool = true,
         paced: Bool = true, sendHistory: TransportSendHistory? = nil) {
        self.id = id
        self.answersNACKs = answersNACKs
        pacer = adaptsToDownlink && paced ? SubscriberPacer(eventLoop: peer.eventLoop) : nil
        adaptation = adaptsToDownlink ? DownlinkAdaptation(eventLoop: peer.eventLoop, sendHistory: sendHistory, pacer: pacer) : nil
        self.ownerId = ownerId
        self.stageId = stageId
        self.peer = peer
        peer.delegate = self
    }

    /// Consumers stay paused until the transport is up: a keyframe sent into a half-open
    /// connection would arrive cut, and everything after it would be undecodable.
    func add(_ consumer: Consumer) {
        consumer.isPaused = !peer.isConnected
        consumers[consumer.outgoingSSRC] = consumer
    }

    func peerDidConnect(_ peer: MediaPeer) {
        for consumer in consumers.values {
            consumer.isPaused = false
            consumer.requestKeyframe(reason: .subscriberConnected)
        }
    }

    func peer(_ peer: MediaPeer, didReceiveRTP packet: UnsafeMutableRawBufferPointer) {
        MediaDropReason.unknownSSRC.count()
    }

    func peer(_ peer: MediaPeer, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) {
        let requests = RTCPFeedback.requests(in: UnsafeRawBufferPointer(packet))
        if requests.estimate != nil { MediaMetrics.shared.rembsReceived.increment() }
        if !requests.reports.isEmpty || requests.estimate != nil {
            adaptation?.report(blocks: requests.reports, receiverEstimate: requests.estimate, consumers: consumers, now: .now)
        }
        if !requests.arrivals.isEmpty { MediaMetrics.shared.transportFeedbackReceived.increment() }
        for feedback in requests.arrivals {
            adaptation?.transportFeedback(feedback, consumers: consumers, now: .now)
        }
        for ssrc in requests.keyframes {
            MediaMetrics.shared.plisReceived.increment()
            guard let consumer = consumers[ssrc] else {
                MediaDropReason.unknownSSRC.count()
                continue
            }
            consumer.requestKeyframe(reason: .subscriberRequest)
        }
        for nack in requests.lost {
            guard let consumer = consumers[nack.ssrc] else {
                MediaDropReason.unknownSSRC.count()
                continue
            }
            adaptation?.nacked(ssrc: nack.ssrc, sequences: nack.sequences, consumers: consumers, now: .now)
            if answersNACKs { consumer.retransmit(nack.sequences) }
        }
    }

    func peerDidClose(_ peer: MediaPeer, reason: String) {
        pacer?.close()
        for consumer in consumers.values { consumer.close() }
        consumers.removeAll()
        onClose?(self)
    }
}
