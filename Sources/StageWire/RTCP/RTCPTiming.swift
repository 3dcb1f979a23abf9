/// The time arithmetic of RTCP reports (RFC 3550 §4, §6.4.1): NTP timestamps, the "compact"
/// middle 32 bits used by LSR and DLSR, and the sender's round-trip time from a report block.
/// Nothing here reads a clock: callers pass the times in.
public enum RTCPTiming {
    /// Seconds from the NTP epoch (1900-01-01) to the Unix epoch (1970-01-01).
    public static let unixEpochOffsetSeconds: UInt64 = 2_208_988_800

    /// The 64-bit NTP timestamp (32.32 fixed point seconds since 1900, RFC 3550 §4) of a
    /// wallclock time given in microseconds since the Unix epoch.
    public static func ntpTime(unixMicros: UInt64) -> UInt64 {
        let seconds = unixMicros / 1_000_000 &+ unixEpochOffsetSeconds
        let fraction = (unixMicros % 1_000_000) << 32 / 1_000_000
        return seconds << 32 | fraction
    }

    /// The middle 32 bits of an NTP timestamp (16.16 fixed point): the unit of LSR and of the
    /// arrival time A in the round-trip computation (RFC 3550 §6.4.1).
    public static func compact(ntpTime: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: ntpTime >> 16)
    }

    /// A duration in units of 1/65536 s (DLSR), saturating at `UInt32.max` (about 18 hours).
    public static func compactDuration(micros: UInt64) -> UInt32 {
        // Beyond 2^32 units the product below would no longer fit the result anyway.
        guard micros < 65_536_000_000 else { return .max }
        return UInt32(min(micros * 65_536 / 1_000_000, UInt64(UInt32.max)))
    }

    /// Microseconds of a duration in units of 1/65536 s.
    public static func micros(compactDuration: UInt32) -> UInt64 {
        UInt64(compactDuration) * 1_000_000 / 65_536
    }

    /// The round-trip time a sender derives from a report block about its stream (RFC 3550
    /// §6.4.1): RTT = A − LSR − DLSR, with A the block's arrival time as compact NTP.
    /// - Parameters:
    ///   - report: a reception report block from an RR or SR about one of our SSRCs.
    ///   - arrivalNTPTime: when the RTCP packet arrived, on the clock the sender's SRs are
    ///     stamped with (64-bit NTP).
    /// - Returns: microseconds; `nil` when the receiver has had no SR yet (LSR = 0). A result
    ///   that would be negative (clock steps, a forged block) is 0.
    public static func roundTripTime(report: RTCPReceptionReport, arrivalNTPTime: UInt64) -> UInt64? {
        guard report.lastSenderReport != 0 else { return nil }
        let arrival = compact(ntpTime: arrivalNTPTime)
        let rtt = Int32(bitPattern: arrival &- report.lastSenderReport &- report.delaySinceLastSenderReport)
        guard rtt > 0 else { return 0 }
        return micros(compactDuration: UInt32(rtt))
    }
}
