/// Outgoing sequence numbers a consumer left unsent because their packets never reached the
/// server (loss on the publisher's uplink): the munger keeps the source's gaps, so that a
/// subscriber can still ask for them (RFC 4585 §6.2.1) and get them once the publisher resends.
///
/// A subscriber counts those numbers as lost in its reception reports (RFC 3550 §6.4.1:
/// expected minus received) and NACKs them. Its downlink lost nothing there: the downlink
/// estimate must leave them out, or a publisher's lossy uplink costs every subscriber layers.
///
/// Bounded: the newest `capacity` gaps are remembered; older ones stay in `unfilled` (they are
/// past repair) but can no longer be matched.
public struct OutgoingGaps: Sendable {
    public static let capacity = 256

    private struct Gap: Sendable {
        var sequence: UInt16
        var filled: Bool
    }

    /// Oldest first.
    private var gaps: [Gap] = []
    /// Gap numbers opened and not filled since the consumer started (monotonic but for fills).
    public private(set) var unfilled = 0

    public init() {}

    /// Numbers `first`, `first + 1`, … (`count` of them) were skipped: the source's gap.
    mutating func opened(first: UInt16, count: Int) {
        guard count > 0 else { return }
        unfilled += count
        let kept = min(count, Self.capacity)
        let overflow = gaps.count + kept - Self.capacity
        if overflow > 0 { gaps.removeFirst(overflow) }
        for offset in (count - kept)..<count {
            gaps.append(Gap(sequence: first &+ UInt16(truncatingIfNeeded: offset), filled: false))
        }
    }

    /// Whether `sequence` is an open gap; if it is, it is filled now (its packet arrived late).
    mutating func fill(_ sequence: UInt16) -> Bool {
        guard let index = gaps.lastIndex(where: { $0.sequence == sequence }), !gaps[index].filled else { return false }
        gaps[index].filled = true
        unfilled -= 1
        return true
    }

    /// Whether `sequence` was a gap (filled since or not): a subscriber's NACK of it reports
    /// loss upstream of the server.
    public func contains(_ sequence: UInt16) -> Bool {
        gaps.contains { $0.sequence == sequence }
    }

    /// `unfilled` as a receiver whose highest sequence number is `highest` counts it: the
    /// gaps after that number have not reached its report yet.
    public func unfilled(notNewerThan highest: UInt16) -> Int {
        var after = 0
        for gap in gaps.reversed() {
            guard RTPMunger.isNewer(gap.sequence, than: highest) else { break }
            if !gap.filled { after += 1 }
        }
        return unfilled - after
    }
}
