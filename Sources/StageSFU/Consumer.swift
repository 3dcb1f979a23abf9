/// One subscriber's copy of a producer (mediasoup's Consumer): decides nothing about layers,
/// rewrites headers through its `RTPMunger` and hands each packet to its transport.
public final class Consumer {
    public let id: String
    public private(set) weak var producer: Producer?
    var munger: RTPMunger
    /// Copies `packet`, lets `rewrite` change the copy's header, protects and sends it.
    let send: (_ packet: UnsafeRawBufferPointer, _ rewrite: (UnsafeMutableRawBufferPointer) -> Void) -> Bool
    /// Paused consumers drop packets (mute, or a subscription to audio only).
    public var isPaused = false
    public private(set) var packetsForwarded = 0
    public var onProducerClosed: (() -> Void)?

    public var outgoingSSRC: UInt32 { munger.outgoingSSRC }

    public init(id: String, producer: Producer, outgoingSSRC: UInt32, payloadType: UInt8,
                send: @escaping (_ packet: UnsafeRawBufferPointer, _ rewrite: (UnsafeMutableRawBufferPointer) -> Void) -> Bool) {
        self.id = id
        self.producer = producer
        munger = RTPMunger(outgoingSSRC: outgoingSSRC, payloadType: payloadType)
        self.send = send
        producer.attach(self)
    }

    func forward(_ packet: UnsafeRawBufferPointer) {
        guard !isPaused else { return }
        var munger = self.munger
        if send(packet, { munger.rewrite($0) }) { packetsForwarded += 1 }
        self.munger = munger
    }

    /// The subscriber reports lost packets (its sequence numbers): resend those still cached.
    /// - Returns: how many were resent.
    @discardableResult
    public func retransmit(_ lost: [UInt16]) -> Int {
        guard let producer, let cache = producer.cache, let source = munger.currentSource else { return 0 }
        var resent = 0
        for outgoing in lost {
            cache.withPacket(ssrc: source, sequence: munger.sourceSequence(for: outgoing)) { packet in
                let munger = self.munger
                if send(packet, { var copy = munger; copy.rewrite($0) }) { resent += 1 }
            }
        }
        return resent
    }

    /// The subscriber asked for a keyframe (PLI/FIR).
    public func requestKeyframe() { producer?.keyframeNeeded() }

    public func close() {
        producer?.detach(self)
        producer = nil
    }

    func producerClosed() {
        producer = nil
        onProducerClosed?()
    }
}
