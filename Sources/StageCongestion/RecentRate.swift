/// Bits per second over the last `window` of one clock: the bytes of the packets stamped within it.
///
/// Fed with transport-cc feedback by arrival time (the receiver's clock), it is what reached the
/// receiver lately, to which GCC decreases when the delay says the link is over-used
/// (draft-ietf-rmcat-gcc-02 §5.5: `A_hat = beta * R_hat`): what the link carried, not what was
/// sent into it. Fed by send time with every packet the feedback reports, received or not, it
/// is what was sent into the link over the same span.
public struct RecentRate: Sendable {
    /// A quarter second: long enough to hold many packets at a low layer's rate, short enough
    /// that right after a link narrows it mostly holds packets at the narrow rate.
    public static let window: Int64 = 250_000
    /// Packets spanning less than this give no rate yet.
    public static let shortestSpan: Int64 = 100_000

    private var packets: [(at: Int64, size: Int)] = []
    private var first = 0
    private var bytes = 0
    private var newest = Int64.min

    public init() {}

    /// Packets held at most: a quarter second at 16,000 packets a second. What a receiver
    /// reports is not trusted to be in order or sparse; beyond this the oldest held go first.
    public static let capacity = 4096

    /// How many packets are held.
    public var count: Int { packets.count - first }

    /// A packet of `size` bytes stamped `microseconds`. Packets older than the newest by more
    /// than the window are forgotten (one that comes that late is not taken); a late one within
    /// it is counted with the rest.
    public mutating func add(size: Int, at microseconds: Int64) {
        guard newest == .min || microseconds > newest - Self.window else { return }
        packets.append((microseconds, size))
        bytes += size
        newest = max(newest, microseconds)
        while first < packets.count - 1, packets[first].at <= newest - Self.window || packets.count - first > Self.capacity {
            bytes -= packets[first].size
            first += 1
        }
        if first > 1024, first * 2 > packets.count {
            packets.removeFirst(first)
            first = 0
        }
    }

    /// Bits per second over the packets held, or nil while they span less than `shortestSpan`.
    public var bitsPerSecond: Int? {
        guard first < packets.count else { return nil }
        let span = newest - packets[first].at
        guard span >= Self.shortestSpan else { return nil }
        // The oldest arrival opens the span: its bytes came before it.
        let counted = bytes - packets[first].size
        return Int(Double(counted) * 8 / (Double(span) / 1_000_000))
    }
}
