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
    private var previous: [UInt32: (lost: Int64, highest: Int64, unsent: Int64)] = [:]

    public init() {}

    /// Loss since the previous call over every stream in `blocks` (nil when no stream has both
    /// an earlier report and packets expected since), and remembers these counters.
    /// - Parameter unsent: how many of a stream's sequence numbers up to the given one (the
    ///   block's highest) were never sent, because they never reached us (`OutgoingGaps`). The
    ///   receiver counts them lost; they are left out of both what it expected and what it lost.
    public mutating func fraction(_ blocks: [RTCPReceptionReport], unsent: (_ ssrc: UInt32, _ upTo: UInt16) -> Int = { _, _ in 0 }) -> Double? {
        var expected: Int64 = 0, lost: Int64 = 0
        for block in blocks {
            let highest = block.extendedHighestSequenceNumber
            let now = (lost: Int64(block.cumulativeLost), highest: Int64(highest),
                       unsent: Int64(unsent(block.ssrc, UInt16(truncatingIfNeeded: highest))))
            defer { previous[block.ssrc] = now }
            guard let before = previous[block.ssrc], now.highest > before.highest else { continue }
            let neverSent = max(0, now.unsent - before.unsent)
            expected += max(0, now.highest - before.highest - neverSent)
            lost += now.lost - before.lost - neverSent
        }
        guard expected > 0 else { return nil }
        return Double(min(max(lost, 0), expected)) / Double(expected)
    }

    /// Forgets streams no longer reported on.
    public mutating func keep(only ssrcs: Set<UInt32>) {
        previous = previous.filter { ssrcs.contains($0.key) }
    }
}
