/// Where one consumer's packets and reports go: the subscriber's transport (the server's
/// `ConsumerOutput`; a recorder in tests). One object the consumer calls for every packet it
/// forwards, on its producer's event loop.
public protocol ConsumerTransport: AnyObject {
    /// Copies `packet`, lets `rewrite` change the copy's header (and the VP8 descriptor of a
    /// video payload), protects and sends it; false when it was not sent. The copy may have
    /// another extension block than `packet`: `rewrite` finds the payload in what it is given.
    func send(_ packet: UnsafeRawBufferPointer, rewrite: (UnsafeMutableRawBufferPointer) -> Void) -> Bool
    /// Sends an answer to a NACK, like `send`. The server sends these past its pacer's queue: a
    /// repair held there would be asked for again, and each answer to the same NACK queued again.
    func sendRepair(_ packet: UnsafeRawBufferPointer, rewrite: (UnsafeMutableRawBufferPointer) -> Void) -> Bool
    /// Sends a Sender Report (RFC 3550 §6.4.1) for the consumer's stream.
    func sendSenderReport(ssrc: UInt32, ntpTime: UInt64, rtpTime: UInt32, packets: UInt32, octets: UInt32)
    /// The consumer's producer closed (its publisher left): it forwards nothing more.
    func producerClosed(for consumer: Consumer)
}
