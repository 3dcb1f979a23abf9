import NIOCore
import StageSFU
import StageTransport
import StageWire

/// Transport-cc towards a publisher that negotiated it
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01): every packet's transport-wide
/// sequence number and arrival go into a `TransportFeedbackRecorder`, reported every
/// `interval` — what browsers' send-side estimator (GCC) needs to follow the publisher's uplink.
/// Lives on the media engine's event loop with its session.
final class TransportFeedbackSender {
    /// How often arrivals are reported (libwebrtc's receiver reports about every 100 ms too).
    static let interval = TimeAmount.milliseconds(100)

    /// The transport-wide sequence number's header extension id (one per BUNDLE transport, RFC 8843 §9.1).
    let extensionID: UInt8
    private var recorder = TransportFeedbackRecorder()
    /// The SSRC of the newest packet recorded, named as the feedback's media source.
    private var mediaSSRC: UInt32 = 0
    private var task: RepeatedTask?

    /// nil when no sending section of `offer` negotiated transport-cc.
    init?(offer: RemoteOffer) {
        guard let id = offer.sections.lazy.compactMap({ $0.extensions[RTPExtensionURI.transportWideCC] }).first,
              let extensionID = UInt8(exactly: id) else { return nil }
        self.extensionID = extensionID
    }

    /// Records one incoming packet (media or RTX) that carries the extension.
    func received(_ header: RTPHeader, packet: UnsafeRawBufferPointer, now: PacketTime) {
        guard let range = header.extensionValueRange(id: extensionID, in: packet), range.count == 2 else { return }
        let sequence = UInt16(packet[range.lowerBound]) << 8 | UInt16(packet[range.lowerBound + 1])
        recorder.record(sequence, at: Int64(now.microseconds))
        mediaSSRC = header.ssrc
    }

    /// Reports every `interval` on `peer` until `stop()`.
    func start(on peer: MediaPeer, sender: UInt32) {
        guard let loop = peer.eventLoop, task == nil else { return }
        let bound = NIOLoopBound((self, WeakPeer(peer: peer)), eventLoop: loop)
        task = loop.scheduleRepeatedTask(initialDelay: Self.interval, delay: Self.interval) { _ in
            let (feedback, weak) = bound.value
            guard let peer = weak.peer else { return }
            feedback.report(on: peer, sender: sender)
        }
    }

    func stop() {
        task?.cancel()
        task = nil
    }

    private func report(on peer: MediaPeer, sender: UInt32) {
        for packet in recorder.feedback(senderSSRC: sender, mediaSSRC: mediaSSRC) {
            guard let bytes = try? RTCPPacket.transportCCFeedback(packet).serialized() else { continue }
            if bytes.withUnsafeBytes({ peer.sendRTCP($0) }) { MediaMetrics.shared.transportFeedbackSent.increment() }
        }
    }

    private struct WeakPeer { weak var peer: MediaPeer? }
}
