/// A reading of the continuous clock as whole nanoseconds since the process first made one:
/// the time the per-packet path stores and compares.
///
/// Not `ContinuousClock.Instant`: the standard library does not freeze that type's layout, so a
/// struct, an array element or a class field holding one has its size known only at run time,
/// and every copy, store and comparison of it goes through runtime calls — on every packet and
/// every consumer. This is one `Int64`; an `Instant` is turned into one once, where a packet
/// arrives.
public struct PacketTime: Comparable, Hashable, Sendable {
    /// Nanoseconds since `origin` (negative for a reading taken before it).
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    public init(_ instant: ContinuousClock.Instant) {
        nanoseconds = Self.nanoseconds(in: instant - Self.origin)
    }

    /// The clock now.
    public static var now: PacketTime { PacketTime(ContinuousClock.now) }

    /// What every `PacketTime` counts from: the first time this type was used.
    private static let origin = ContinuousClock.now

    /// Microseconds since `origin`, never negative (the arrival clock of reception statistics).
    public var microseconds: UInt64 { UInt64(max(0, nanoseconds / 1000)) }

    /// Seconds from `earlier` to this reading (negative when `earlier` is later).
    public func seconds(since earlier: PacketTime) -> Double { Double(nanoseconds &- earlier.nanoseconds) / 1e9 }

    public static func < (lhs: PacketTime, rhs: PacketTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    public static func - (lhs: PacketTime, rhs: PacketTime) -> Duration { .nanoseconds(lhs.nanoseconds &- rhs.nanoseconds) }

    public static func + (lhs: PacketTime, rhs: Duration) -> PacketTime {
        PacketTime(nanoseconds: lhs.nanoseconds &+ nanoseconds(in: rhs))
    }

    /// Whole nanoseconds of `duration` (a fraction of one is dropped).
    private static func nanoseconds(in duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }
}
