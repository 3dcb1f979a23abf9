/// Limits of a signaling socket (documented in `Protocol/README.md`).
enum SignalingLimits {
    /// A client must send `join` this soon after connecting.
    static let joinTimeout: Duration = .seconds(10)
    /// Clients ping this often; silence for three intervals ends the session.
    static let pingIntervalSeconds = 15
    /// Token bucket: sustained messages per second and burst size.
    static let messagesPerSecond = 50.0
    static let burst = 100.0
    /// Refused messages after which a flooding client is disconnected.
    static let maxRefusedMessages = 200
}

/// A token bucket (sustained rate, burst) over a monotonic clock.
struct RateLimiter {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var last: ContinuousClock.Instant

    init(rate: Double, burst: Double, now: ContinuousClock.Instant = .now) {
        self.rate = rate
        self.burst = burst
        tokens = burst
        last = now
    }

    /// Takes one token; false when the bucket is empty.
    mutating func allow(now: ContinuousClock.Instant = .now) -> Bool {
        let elapsed = now - last
        last = now
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(burst, tokens + seconds * rate)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
