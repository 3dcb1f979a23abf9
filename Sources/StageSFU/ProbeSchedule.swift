/// When a subscriber's link may be probed before a move up, and when a probe under way is given up.
///
/// A failed probe holds the next one back: `firstWait` (2 s), doubling with each failure in a
/// row up to `longestWait` (4 s), back to 2 s after a pass. The wait is short because it is paid
/// after the link widens too: with a 32 s ceiling, the probes that failed while a link was narrow
/// kept a subscriber on a low layer for many seconds after it recovered, and with 8 s the return
/// to 1280 px after a 300 kbps spell took up to 12 s (the benchmark's target is 10 s). A failed
/// probe costs the layers it started from nothing (`DownlinkAdaptation`'s aftermath), only a
/// report's worth of loss.
///
/// A short wait is affordable because a failing probe ends early: a link that overflows under
/// the padding drops media too, and the receiver NACKs it within a round trip (RFC 4585 §6.2.1).
/// Once the NACKs during a probe show the loss that would fail it when judged (at least
/// `nacksToGiveUp` sequence numbers, and `lossToGiveUp` of the media packets sent since it
/// started), it stops, after a few hundred milliseconds of overflow instead of its whole
/// duration. A link that loses a packet now and then, at a high packet rate too, does not reach
/// that within a probe.
public struct ProbeSchedule: Sendable {
    public static let firstWait: Duration = .seconds(2)
    public static let longestWait: Duration = .seconds(4)
    public static let nacksToGiveUp = 3
    /// The loss under which a probe passes when it is judged (`DownlinkAdaptation`).
    public static let lossToGiveUp = 0.02

    private var blockedUntil: ContinuousClock.Instant?
    private var wait = ProbeSchedule.firstWait
    /// Sequence numbers NACKed since the probe under way started (nil: none under way).
    private var nackedDuringProbe: Int?

    public init() {}

    /// Whether a probe is under way.
    public var probing: Bool { nackedDuringProbe != nil }

    /// Whether a new probe may start at `now` (none under way, no failure's wait running).
    public func mayStart(now: ContinuousClock.Instant) -> Bool {
        !probing && blockedUntil.map { now >= $0 } ?? true
    }

    public mutating func started() { nackedDuringProbe = 0 }

    /// The probe under way stopped unjudged (the stream it padded went away).
    public mutating func cancelled() { nackedDuringProbe = nil }

    /// `count` sequence numbers newly NACKed, `sentSinceStart` media packets sent since the
    /// probe started. Returns true when the probe under way has to be given up now; it is then
    /// over, as failed.
    public mutating func nacked(count: Int, sentSinceStart: Int, now: ContinuousClock.Instant) -> Bool {
        guard let nacked = nackedDuringProbe else { return false }
        let total = nacked + count
        nackedDuringProbe = total
        guard total >= Self.nacksToGiveUp, Double(total) >= Self.lossToGiveUp * Double(sentSinceStart) else { return false }
        ended(passed: false, now: now)
        return true
    }

    /// The probe under way was judged by a report.
    public mutating func ended(passed: Bool, now: ContinuousClock.Instant) {
        nackedDuringProbe = nil
        if passed {
            wait = Self.firstWait
            blockedUntil = nil
        } else {
            blockedUntil = now + wait
            wait = min(wait * 2, Self.longestWait)
        }
    }
}
