/// The kind of media a track carries.
public enum MediaKind: String, Sendable, Hashable {
    case audio, video
}

/// One published track (mediasoup's Producer): the packets of one publisher's audio or video,
/// fanned out to its consumers. Lives on the media event loop.
public final class Producer {
    public let id: String
    public let kind: MediaKind
    /// SSRCs this track arrives on (one per simulcast layer; one for a plain track).
    public internal(set) var ssrcs: Set<UInt32> = []
    var consumers: [Consumer] = []
    /// Recent packets, for answering NACKs (video only: audio is not retransmitted).
    let cache: PacketCache?
    /// Sends a keyframe request (PLI) for `ssrc` towards the publisher.
    let requestKeyframe: (_ ssrc: UInt32) -> Void
    private var lastKeyframeRequest: ContinuousClock.Instant?
    /// Packets received and forwarded, for stats.
    public private(set) var packetsReceived = 0
    public var consumerCount: Int { consumers.count }

    /// Keyframe requests towards the publisher are at most this frequent.
    public static let keyframeRequestInterval: Duration = .milliseconds(300)

    public init(id: String, kind: MediaKind, requestKeyframe: @escaping (_ ssrc: UInt32) -> Void) {
        self.id = id
        self.kind = kind
        self.requestKeyframe = requestKeyframe
        cache = kind == .video ? PacketCache() : nil
    }

    /// One RTP packet from the publisher (decrypted, header checked).
    public func receive(_ packet: UnsafeMutableRawBufferPointer) {
        packetsReceived += 1
        let ssrc = RTPBytes.ssrc(packet)
        ssrcs.insert(ssrc)
        cache?.store(UnsafeRawBufferPointer(packet), ssrc: ssrc, sequence: RTPBytes.sequenceNumber(packet))
        for consumer in consumers { consumer.forward(UnsafeRawBufferPointer(packet)) }
    }

    /// A consumer or the SFU wants a keyframe: ask the publisher, rate limited.
    public func keyframeNeeded(now: ContinuousClock.Instant = .now) {
        guard kind == .video else { return }
        if let last = lastKeyframeRequest, now - last < Self.keyframeRequestInterval { return }
        lastKeyframeRequest = now
        for ssrc in ssrcs { requestKeyframe(ssrc) }
    }

    func attach(_ consumer: Consumer) {
        consumers.append(consumer)
        keyframeNeeded()
    }

    func detach(_ consumer: Consumer) {
        consumers.removeAll { $0 === consumer }
    }

    /// The publisher is gone: every consumer stops.
    public func close() {
        for consumer in consumers { consumer.producerClosed() }
        consumers.removeAll()
    }
}
