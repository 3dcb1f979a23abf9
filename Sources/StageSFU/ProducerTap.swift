/// What takes every packet a producer forwards, whatever layer its consumers want: the origin
/// end of a pipe to another router (mediasoup's PipeConsumer), which gives the far router every
/// simulcast and temporal layer once. Called on the producer's event loop, after the duplicate
/// and mute checks, with each packet as its consumers get it (RTX already restored).
public protocol ProducerTap: AnyObject {
    /// A packet of `layer` (0 for a track without simulcast).
    func producer(_ producer: Producer, forwards packet: UnsafeRawBufferPointer, fields: RTPFixedFields, layer: Int)
    /// A Sender Report from the publisher for one of the producer's SSRCs (RFC 3550 §6.4.1).
    func producer(_ producer: Producer, senderReport ssrc: UInt32, ntpTime: UInt64, rtpTime: UInt32)
    /// The publisher's new connection's producer takes over (`Producer.handOver`): the tap
    /// now gets its packets.
    func producer(_ producer: Producer, handedOverTo successor: Producer)
    /// The producer closed: its publisher left.
    func producerClosed(_ producer: Producer)
}
