/// The publisher's target bitrate, following the server's congestion feedback: back off fast
/// (×0.75 on trouble), recover slowly (×1.15 after a stable period), always within [min, max]
/// and never above the latest receiver estimate (REMB). A pure state machine: time is passed in.
public struct BitrateController: Sendable, Hashable {
    public let minBitrate: Int
    public let maxBitrate: Int
    /// Bits per second the encoders should aim for now.
    public private(set) var target: Int
    /// The server's latest estimate of what it can take (REMB), if any.
    public private(set) var estimate: Int?
    /// How long the path must stay free of trouble before the target grows again.
    public let stablePeriodMicros: UInt64
    /// Loss above this fraction (from receiver reports) counts as trouble.
    public let lossThreshold: Double
    private var lastChangeMicros: UInt64
    private var lastTroubleMicros: UInt64?

    public init(minBitrate: Int, maxBitrate: Int, start: Int? = nil, stablePeriodMicros: UInt64 = 3_000_000,
                lossThreshold: Double = 0.05, nowMicros: UInt64 = 0) {
        precondition(minBitrate > 0 && minBitrate <= maxBitrate, "0 < min ≤ max")
        self.minBitrate = minBitrate
        self.maxBitrate = maxBitrate
        self.stablePeriodMicros = stablePeriodMicros
        self.lossThreshold = lossThreshold
        target = min(max(start ?? maxBitrate, minBitrate), maxBitrate)
        lastChangeMicros = nowMicros
    }

    /// Trouble seen now (loss over the threshold, a NACK burst, a keyframe request for loss):
    /// the target drops by a quarter at most once per 500 ms.
    public mutating func trouble(nowMicros: UInt64) {
        if let last = lastTroubleMicros, nowMicros < last + 500_000 { return }
        lastTroubleMicros = nowMicros
        setTarget(Int((Double(target) * 0.75).rounded()), nowMicros: nowMicros)
    }

    /// A receiver report's fraction lost (RFC 3550 §6.4.1, 0…1).
    public mutating func reportedLoss(_ fraction: Double, nowMicros: UInt64) {
        if fraction > lossThreshold { trouble(nowMicros: nowMicros) } else { tick(nowMicros: nowMicros) }
    }

    /// The receiver's estimate (REMB): a cap, and trouble when it is below what we send.
    public mutating func receiverEstimate(_ bitsPerSecond: Int, nowMicros: UInt64) {
        estimate = bitsPerSecond
        if target > bitsPerSecond { setTarget(bitsPerSecond, nowMicros: nowMicros) } else { tick(nowMicros: nowMicros) }
    }

    /// Time passes without trouble: after a stable period the target grows by 15 %.
    public mutating func tick(nowMicros: UInt64) {
        guard nowMicros >= lastChangeMicros + stablePeriodMicros, target < ceiling else { return }
        setTarget(Int((Double(target) * 1.15).rounded()), nowMicros: nowMicros)
    }

    private var ceiling: Int { min(maxBitrate, max(minBitrate, estimate ?? maxBitrate)) }

    private mutating func setTarget(_ value: Int, nowMicros: UInt64) {
        target = min(max(value, minBitrate), ceiling)
        lastChangeMicros = nowMicros
    }
}
