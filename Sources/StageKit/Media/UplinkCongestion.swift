import StageCongestion
import StageTransport
import StageWire

/// The publisher's own send-side estimate, as a browser runs GCC on its uplink: every RTP
/// packet of the publish connection carries a transport-wide sequence number
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2), written as it leaves (`stamp`);
/// the server's feedback on them (§3.1) goes through GCC's delay-based detector
/// (`DelayBasedDetector`, draft-ietf-rmcat-gcc-02 §5), and at over-use `feedback` returns what
/// reached the server lately — the encoders drop to a share of it
/// (`BitrateController.delayOverused`) before the link drops anything.
///
/// Packets are built with a placeholder element (`placeholder`) so that numbering them moves
/// no byte. Confined to the connection's event loop, where packets leave and RTCP arrives.
final class UplinkCongestion {
    /// The element every packet is built with: two zero bytes under the negotiated ID.
    static let placeholder: (id: UInt8, value: [UInt8]) = (ClientPeerConnection.transportWideExtensionID, [0, 0])

    private let history = TransportSendHistory()
    private var detector = DelayBasedDetector()

    /// `extensions` with the placeholder added (a block of its own without).
    static func withPlaceholder(_ extensions: RTPExtensionBlockBuilder?) -> RTPExtensionBlockBuilder {
        var block = extensions ?? RTPExtensionBlockBuilder()
        try? block.set(id: placeholder.id, value: placeholder.value)
        return block
    }

    /// Numbers `packet` (its placeholder) and remembers when it left and its size. A packet
    /// without the placeholder is left as it is and not remembered.
    func stamp(_ packet: inout [UInt8], nowMicros: UInt64) {
        let sequence = history.nextSequence
        let stamped = packet.withUnsafeMutableBytes { bytes in
            guard let header = try? RTPHeader.parse(UnsafeRawBufferPointer(bytes)).header else { return false }
            return (try? header.rewriteExtension(id: Self.placeholder.id, with: RTPTransportSequenceNumber(value: sequence),
                                                 in: bytes)) != nil
        }
        guard stamped else { return }
        history.sent(history.takeSequence(), size: packet.count, at: Int64(nowMicros))
    }

    /// The server's transport-cc feedback: the rate that reached it lately when the encoders
    /// are to slow down now (over-use, and less arriving than was sent), else nil.
    func feedback(_ feedback: RTCPTransportCCFeedback, nowMicros: UInt64) -> Int? {
        guard Int(feedback.packetStatusCount) <= TransportSendHistory.capacity else { return nil }
        for packet in history.match(feedback) {
            detector.packet(size: packet.size + TransportSendHistory.overheadPerPacket, sentAt: packet.sentAt, arrivedAt: packet.arrivedAt)
        }
        return detector.overuseCut(nowMicros: Int64(nowMicros))
    }
}
