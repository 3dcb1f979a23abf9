public import StageWire

/// The share of packets a subscriber lost between two evaluations, from the cumulative counters
/// of its reception report blocks (RFC 3550 §6.4.1: cumulative number of packets lost, extended
/// highest sequence number received; the interval arithmetic of §A.3).
///
/// Why not the blocks' own `fraction lost`: it covers only the interval since the receiver's
/// previous report, and a receiver that sends a report with every NACK (Chromium does, in one
/// compound) reports every few tens of milliseconds under loss. The estimator runs at most every
/// 200 ms; the cumulative counters cover exactly the interval since it last ran.
public struct ReportedLoss: Sendable {
    private var previous: [UInt32: (lost: Int64, highest: Int64)] = [:]

    public init() {}

    /// Loss since the previous call over every stream in `blocks` (nil when no stream has both
    /// an earlier report and packets expected since), and remembers these counters.
    public mutating func fraction(_ blocks: [RTCPReceptionReport]) -> Double? {
        var expected: Int64 = 0, lost: Int64 = 0
        for block in blocks {
            let now = (lost: Int64(block.cumulativeLost), highest: Int64(block.extendedHighestSequenceNumber))
            defer { previous[block.ssrc] = now }
            guard let before = previous[block.ssrc], now.highest > before.highest else { continue }
            expected += now.highest - before.highest
            lost += now.lost - before.lost
        }
        guard expected > 0 else { return nil }
        return Double(min(max(lost, 0), expected)) / Double(expected)
    }

    /// Forgets streams no longer reported on.
    public mutating func keep(only ssrcs: Set<UInt32>) {
        previous = previous.filter { ssrcs.contains($0.key) }
    }
}
