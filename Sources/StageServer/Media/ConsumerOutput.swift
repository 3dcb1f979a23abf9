import StageSFU
import StageTransport

/// Where one consumer's packets and reports go (its `ConsumerTransport`): a packet through its
/// subscriber's pacer, if it has one, then stamped by its `ForwardedPacketWriter`, protected
/// and sent on the subscriber's peer, and counted; a Sender Report on the peer; the end of its
/// producer closes the peer.
final class ConsumerOutput: ConsumerTransport, PacedSink {
    /// Held strongly: the subscriber's session closes its consumers, and so releases this, when
    /// the peer closes; a closed peer sends nothing (`sendRTP` refuses and counts it).
    private let peer: MediaPeer
    private let writer: ForwardedPacketWriter
    private let pacer: SubscriberPacer?
    private let traffic: SubscriberPacer.Traffic
    private let forwarded: MediaMetrics.Forwarded

    init(peer: MediaPeer, writer: ForwardedPacketWriter, pacer: SubscriberPacer?, traffic: SubscriberPacer.Traffic,
         forwarded: MediaMetrics.Forwarded) {
        self.peer = peer
        self.writer = writer
        self.pacer = pacer
        self.traffic = traffic
        self.forwarded = forwarded
    }

    /// A packet of the consumer's stream (media, or probe padding).
    func send(_ packet: UnsafeRawBufferPointer, rewrite: (UnsafeMutableRawBufferPointer) -> Void) -> Bool {
        guard let pacer else { return write(packet, rewrite: rewrite) }
        return pacer.send(packet, rewrite: rewrite, as: traffic, via: self)
    }

    /// An answer to a NACK: past the pacer's queue, within its budget (`SubscriberPacer.Traffic.repair`).
    func sendRepair(_ packet: UnsafeRawBufferPointer, rewrite: (UnsafeMutableRawBufferPointer) -> Void) -> Bool {
        guard let pacer else { return write(packet, rewrite: rewrite) }
        return pacer.send(packet, rewrite: rewrite, as: .repair, via: self)
    }

    func sendSenderReport(ssrc: UInt32, ntpTime: UInt64, rtpTime: UInt32, packets: UInt32, octets: UInt32) {
        RTCPFeedback.senderReport(ssrc: ssrc, ntpTime: ntpTime, rtpTime: rtpTime, packets: packets, octets: octets)
            .withUnsafeBytes { _ = peer.sendRTCP($0) }
    }

    func producerClosed(for consumer: Consumer) {
        peer.close(reason: "the publisher left")
    }

    func write(_ packet: UnsafeRawBufferPointer, rewrite: (UnsafeMutableRawBufferPointer) -> Void) -> Bool {
        guard writer.send(packet, rewrite: rewrite, on: peer) else { return false }
        forwarded.count(bytes: packet.count)
        return true
    }
}
