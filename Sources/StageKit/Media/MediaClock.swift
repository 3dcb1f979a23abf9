import Foundation

/// Microseconds on the monotonic clock: capture times, RTP timestamps and jitter use it.
enum MediaClock {
    static func nowMicros() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000 + UInt64(spec.tv_nsec) / 1_000
    }

    /// NTP time (RFC 3550 §4: seconds since 1900 in 32.32 fixed point) of the wall clock, for Sender Reports.
    static func ntpNow() -> UInt64 {
        let since1970 = Date().timeIntervalSince1970
        let seconds = UInt64(since1970) + 2_208_988_800
        let fraction = UInt64((since1970 - floor(since1970)) * 4_294_967_296.0)
        return seconds << 32 | fraction
    }
}
