/// Conversion from microseconds to RTP clock ticks, shared by the sender's timestamps and the
/// receiver's arrival times (RFC 3550 §5.1, §A.8).
public enum RTPClock {
    /// `micros × clockRate / 10^6`, modulo 2^32. Exact for every 64-bit input (no intermediate
    /// overflow: whole seconds and the sub-second remainder are scaled separately).
    public static func ticks(micros: UInt64, clockRate: UInt32) -> UInt32 {
        let seconds = micros / 1_000_000
        let remainder = micros % 1_000_000
        return UInt32(truncatingIfNeeded: seconds &* UInt64(clockRate) &+ remainder * UInt64(clockRate) / 1_000_000)
    }
}
