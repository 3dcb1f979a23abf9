import Foundation
import StageWire

/// The clocks of media: capture times and RTP timestamps use the monotonic clock in µs
/// (`VideoFrame.captureTimeMicros`); Sender Reports carry the wall clock as NTP time.
public enum MediaClock {
    /// Microseconds on the monotonic clock.
    public static func nowMicros() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000 + UInt64(spec.tv_nsec) / 1_000
    }

    /// The wall clock as NTP time (RFC 3550 §4), for Sender Reports.
    public static func ntpNow() -> UInt64 {
        RTCPTiming.ntpTime(unixMicros: UInt64(Date().timeIntervalSince1970 * 1_000_000))
    }
}
