/// How many packets a subscriber says it lost, from its NACKs (RFC 4585 §6.2.1): each sequence
/// number counted once, however often it is asked for. Receivers ask again — Chromium once per
/// round trip until the repair arrives, aiortc re-listing every hole of its last 128 packets
/// with each new one — and counting repeats would read one unrepaired packet as lasting loss.
///
/// Per stream, only sequence numbers after the newest one already counted are new (RFC 1982
/// order): a hole is NACKed first when the packet after it arrives, so holes come in order.
public struct NackedLoss: Sendable {
    private var newestCounted: [UInt32: UInt16] = [:]
    /// Packets newly reported lost since the last `take()`.
    public private(set) var count = 0

    public init() {}

    /// Counts the sequence numbers of one NACK on `ssrc` not counted before.
    public mutating func nacked(ssrc: UInt32, sequences: [UInt16]) {
        for sequence in sequences {
            if let newest = newestCounted[ssrc], sequence == newest || !RTPMunger.isNewer(sequence, than: newest) { continue }
            newestCounted[ssrc] = sequence
            count += 1
        }
    }

    /// The count since the previous call; starts a new interval.
    public mutating func take() -> Int {
        defer { count = 0 }
        return count
    }

    /// Forgets streams that are no longer sent.
    public mutating func keep(only ssrcs: Set<UInt32>) {
        newestCounted = newestCounted.filter { ssrcs.contains($0.key) }
    }
}
