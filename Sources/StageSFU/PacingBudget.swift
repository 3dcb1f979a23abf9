/// How fast one subscriber's video may leave: a leaky bucket at a multiple of what it is to be
/// sent a second (its downlink estimate, or what its allocation sends when that is more: the
/// lowest layers are sent whatever the estimate), so a burst the publisher sent at its own
/// link's speed (a keyframe, the first frame of a layer switched to) reaches a narrow link
/// spread out instead of overflowing its queue — a lost packet of a keyframe costs a
/// retransmission or another keyframe, a freeze either way. Pacing spreads bursts; it never
/// holds the average back. The shape of a browser's pacer (libwebrtc's pacing factor 2.5 of
/// the target; here 1.5, since what is sent already fits the estimate and only its bursts need
/// spreading).
///
/// A packet may go while the budget is not in debt; sending it spends its size (the budget may
/// go below zero: a packet is never split). An answer to a NACK goes ahead of what waits, at
/// most one burst into debt (`mayRepair`): repairs share the link with the media instead of
/// adding to it — on a link already full, unbounded repairs are lost in turn, asked for again
/// and answered again (libwebrtc paces retransmissions ahead of video and caps their rate at
/// the target). The budget fills at the pacing rate up to
/// `burst` of it. What waits in the caller's queue raises the rate so that the queue is sent
/// within `longestQueue`: pacing delays, it never starves (libwebrtc's queue-time limit).
public struct PacingBudget: Sendable {
    /// The pacing rate as a multiple of the estimate.
    public static let factor = 1.5
    /// The slowest pacing rate: the lowest layers and audio must get through whatever the estimate says.
    public static let minimumBitsPerSecond = 150_000
    /// What may leave at once after a quiet spell, as time at the pacing rate…
    public static let burst: Duration = .milliseconds(10)
    /// …and at least this many bytes (two full packets).
    public static let minimumBurstBytes = 2_400
    /// What waits is sent within this, however low the estimate.
    public static let longestQueue: Duration = .milliseconds(250)

    /// The pacing rate; nil while there is no estimate (nothing is paced).
    public private(set) var bitsPerSecond: Int?
    /// Bytes that may leave now; negative: the debt the last packet left.
    private var bytes = 0.0
    private var updatedAt: PacketTime?

    public init() {}

    /// What the subscriber is to be sent a second changed (nil: no estimate, stop pacing).
    public mutating func pace(for rate: Int?) {
        bitsPerSecond = rate.map { max(Int(Double($0) * Self.factor), Self.minimumBitsPerSecond) }
        if bitsPerSecond == nil { bytes = 0 }
    }

    /// Whether a packet may leave at `now`, with `queuedBytes` waiting.
    public mutating func maySend(queuedBytes: Int, now: PacketTime) -> Bool {
        refill(queuedBytes: queuedBytes, now: now)
        return bitsPerSecond == nil || bytes >= 0
    }

    /// Whether an answer to a NACK may leave at `now`, with `queuedBytes` waiting: while the
    /// budget is less than one burst in debt (a repair goes ahead of held media; beyond that
    /// the link is sent more than its estimate, and the receiver asks again after its RTT or
    /// asks for a keyframe).
    public mutating func mayRepair(queuedBytes: Int, now: PacketTime) -> Bool {
        refill(queuedBytes: queuedBytes, now: now)
        guard let rate = rate(queuedBytes: queuedBytes) else { return true }
        return bytes >= -Self.burstBytes(rate: rate)
    }

    /// A packet of `size` bytes left (whether it was paced or not: audio is counted, not held).
    public mutating func spend(_ size: Int, queuedBytes: Int, now: PacketTime) {
        refill(queuedBytes: queuedBytes, now: now)
        if bitsPerSecond != nil { bytes -= Double(size) }
    }

    /// How long until the budget is out of debt, with `queuedBytes` waiting (zero: now).
    public func wait(queuedBytes: Int) -> Duration {
        guard bytes < 0, let rate = rate(queuedBytes: queuedBytes) else { return .zero }
        return .nanoseconds(Int64(-bytes * 8 / rate * 1e9))
    }

    /// Bits a second the budget fills at, raised so that `queuedBytes` leave within `longestQueue`.
    private func rate(queuedBytes: Int) -> Double? {
        guard let bitsPerSecond else { return nil }
        let drain = Double(queuedBytes * 8) / Self.longestQueueSeconds
        return max(Double(bitsPerSecond), drain)
    }

    private mutating func refill(queuedBytes: Int, now: PacketTime) {
        defer { updatedAt = now }
        guard let rate = rate(queuedBytes: queuedBytes), let last = updatedAt, now > last else { return }
        bytes = min(bytes + rate / 8 * now.seconds(since: last), Self.burstBytes(rate: rate))
    }

    /// The bytes of one burst at `rate` bits a second: `burst` of it, at least `minimumBurstBytes`.
    private static func burstBytes(rate: Double) -> Double {
        max(rate / 8 * burstSeconds, Double(minimumBurstBytes))
    }

    // `burst` and `longestQueue` in seconds, converted once: the budget is refilled per packet.
    private static let burstSeconds = seconds(burst)
    private static let longestQueueSeconds = seconds(longestQueue)

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
