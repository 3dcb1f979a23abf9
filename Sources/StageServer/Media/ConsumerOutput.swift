import StageTransport

/// Where one consumer's packets go: through its subscriber's pacer, if it has one, then
/// stamped by its `ForwardedPacketWriter`, protected and sent on the subscriber's peer, and
/// counted. One object the consumer's send closure calls, rather than a chain of closures:
/// this runs for every packet forwarded.
final class ConsumerOutput: PacedSink {
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

    func write(_ packet: UnsafeRawBufferPointer, rewrite: (UnsafeMutableRawBufferPointer) -> Void) -> Bool {
        guard writer.send(packet, rewrite: rewrite, on: peer) else { return false }
        forwarded.count(bytes: packet.count)
        return true
    }
}
