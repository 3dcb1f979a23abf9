/// The publisher's target bitrate, following the server's congestion feedback: back off fast
/// (×0.75 on trouble, or down to the receiver's estimate), hold for a stable period, then grow
/// by 15 % a second while nothing goes wrong — the decrease, hold and increase states of GCC's
/// rate controller (draft-ietf-rmcat-gcc-02 §5.5), driven here by loss, REMB and the delay of
/// the publisher's own transport-cc feedback (`delayOverused`). Always within
/// [min, max] and never above the latest receiver estimate (REMB). A pure state machine: time is passed in.
public struct BitrateController: Sendable, Hashable {
    public let minBitrate: Int
    public let maxBitrate: Int
    /// Bits per second the encoders should aim for now.
    public private(set) var target: Int
    /// The server's latest estimate of what it can take (REMB), if any.
    public private(set) var estimate: Int?
    /// How long after a decrease (or the start) before the target grows again: the queue that
    /// caused the trouble drains, and the receiver's estimate settles.
    public let stablePeriodMicros: UInt64
    /// Between two growth steps once stable. Was the stable period (3 s) too: from a narrow
    /// spell back to 1 Mbps took over 25 s.
    public let growthIntervalMicros: UInt64
    /// Loss above this fraction (from receiver reports) counts as trouble.
    public let lossThreshold: Double
    private var lastChangeMicros: UInt64
    private var lastTroubleMicros: UInt64?
    private var lastDecreaseMicros: UInt64

    public init(minBitrate: Int, maxBitrate: Int, start: Int? = nil, stablePeriodMicros: UInt64 = 3_000_000,
                growthIntervalMicros: UInt64 = 1_000_000, lossThreshold: Double = 0.05, nowMicros: UInt64 = 0) {
        precondition(minBitrate > 0 && minBitrate <= maxBitrate, "0 < min ≤ max")
        self.minBitrate = minBitrate
        self.maxBitrate = maxBitrate
        self.stablePeriodMicros = stablePeriodMicros
        self.growthIntervalMicros = growthIntervalMicros
        self.lossThreshold = lossThreshold
        target = min(max(start ?? maxBitrate, minBitrate), maxBitrate)
        lastChangeMicros = nowMicros
        lastDecreaseMicros = nowMicros
    }

    /// Trouble seen now (loss over the threshold, a NACK burst, a keyframe request for loss):
    /// the target drops by a quarter at most once per 500 ms.
    public mutating func trouble(nowMicros: UInt64) {
        if let last = lastTroubleMicros, nowMicros < last + 500_000 { return }
        lastTroubleMicros = nowMicros
        setTarget(Int((Double(target) * 0.75).rounded()), nowMicros: nowMicros)
        lastDecreaseMicros = nowMicros  // the hold starts even when the target already sits at the minimum
    }

    /// A receiver report's fraction lost (RFC 3550 §6.4.1, 0…1).
    public mutating func reportedLoss(_ fraction: Double, nowMicros: UInt64) {
        if fraction > lossThreshold { trouble(nowMicros: nowMicros) } else { tick(nowMicros: nowMicros) }
    }

    /// The receiver's estimate (REMB): a cap, and trouble when it is below what we send.
    public mutating func receiverEstimate(_ bitsPerSecond: Int, nowMicros: UInt64) {
        estimate = bitsPerSecond
        if target > bitsPerSecond {
            setTarget(bitsPerSecond, nowMicros: nowMicros)
            lastDecreaseMicros = nowMicros
        } else {
            tick(nowMicros: nowMicros)
        }
    }

    /// The delay says the uplink is over-used and `ackedBitsPerSecond` reached the server
    /// lately: down to `overuseFactor` of that if lower (GCC's decrease, draft-ietf-rmcat-gcc-02
    /// §5.5), and the hold starts. What arrived includes audio: the cut leaves the video that
    /// much more, a shallower cut than GCC's on the video alone.
    public mutating func delayOverused(ackedBitsPerSecond: Int, nowMicros: UInt64) {
        let decreased = Int((Double(ackedBitsPerSecond) * Self.overuseFactor).rounded())
        if decreased < target { setTarget(decreased, nowMicros: nowMicros) }
        lastDecreaseMicros = nowMicros
    }

    /// GCC's β: the share of what arrived an over-used link is given.
    public static let overuseFactor = 0.85

    /// Time passes without trouble: a stable period after the last decrease, the target grows
    /// by 15 % each growth interval.
    public mutating func tick(nowMicros: UInt64) {
        guard nowMicros >= lastDecreaseMicros + stablePeriodMicros, nowMicros >= lastChangeMicros + growthIntervalMicros,
              target < ceiling else { return }
        setTarget(Int((Double(target) * 1.15).rounded()), nowMicros: nowMicros)
    }

    private var ceiling: Int { min(maxBitrate, max(minBitrate, estimate ?? maxBitrate)) }

    private mutating func setTarget(_ value: Int, nowMicros: UInt64) {
        target = min(max(value, minBitrate), ceiling)
        lastChangeMicros = nowMicros
    }
}
