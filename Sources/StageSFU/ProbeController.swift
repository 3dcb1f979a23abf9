/// One subscriber's link probes, from start to aftermath; pure: its caller sends the padding
/// and passes every instant in.
///
/// Before a move up, the link is probed: padding on the RTX stream brings what is sent up to
/// the whole rate the next steps need (`target`), a quarter more when a simulcast layer changes
/// (room for its keyframes) and 5 % more when only a temporal layer does, for `duration`; the
/// first receiver report after that judges it, and only one with less than
/// `ProbeSchedule.lossToGiveUp` loss, of the media and (where transport-cc tells,
/// `ProbeArrivals`) of everything the probe's time sent, passes it. A probe under way is given
/// up once its NACKs (`ProbeSchedule`) or its own arrivals show the loss that would fail it, or
/// at a delay over-use.
///
/// A stopped probe leaves an aftermath (`Aftermath`) until a clean report whose interval began
/// after it, or `longestAftermath`: what the media carried before it is the floor of the
/// estimate, and after a failure the layers held stay. It may outlast the start of the next
/// probe, which then keeps the layers a failure left.
public struct ProbeController: Sendable {
    /// How long padding goes out before a report judges the probe.
    public static let duration: Duration = .milliseconds(900)
    /// How often padding goes out.
    public static let tick: Duration = .milliseconds(20)
    /// How far above the estimate the next step may cost and still be probed: GCC probes at
    /// twice its estimate. A probe that passes raises the estimate to what it tried; waiting
    /// for the estimate to climb to the step first (30 % a report) took a second or two a layer.
    public static let reach = 2.0
    /// The least padding a probe sends, bits a second.
    public static let minimumBitrate = 50_000
    /// The most an aftermath lasts: loss that goes on longer is the link's, not a probe's.
    public static let longestAftermath: Duration = .seconds(5)
    private static let tickSeconds = Double(tick.components.attoseconds) / 1e18

    /// A probe under way.
    public struct Probe: Sendable, Equatable {
        /// The first report from this instant judges it.
        public let until: ContinuousClock.Instant
        /// The padding's rate.
        public let bitsPerSecond: Int
        /// The whole rate the steps it tries need (headroom not included): the estimate once it passed.
        public let target: Int
        /// What was sent besides the padding when it started (media, carried with a steady delay).
        public let mediaBitrate: Int
        /// Media packets forwarded to the subscriber when it started.
        let packetsAtStart: Int
        /// Bytes owed to the padding schedule (a fraction of a packet carries to the next tick).
        var owed = 0.0
    }

    /// A stopped probe's aftermath. The delay trend lags the queue, the queue its padding built
    /// drains slowly behind media that nearly fills the link, and the repairs of what it dropped
    /// add to it: on a 300 kbps link, the reports showed 8–18 % loss for up to 3 s after a failed
    /// probe. Cut below what the media was sent at before the probe, a subscriber there fell
    /// from the whole lowest layer to half its frames after each failed probe, and the
    /// allocator's back-off, doubling at each push-down, then held it there for up to 16 s.
    struct Aftermath: Sendable {
        /// What the media alone was sent at before the probe: the estimate falls no lower.
        var carried: Int
        var stoppedAt: ContinuousClock.Instant
        /// The probe failed: no track goes below the layer it held (the layers' rates, measured
        /// anew each second, pushed it down under an estimate held at the media's rate).
        var failed: Bool
    }

    /// How a report judged the probe under way.
    public enum Verdict: Sendable, Equatable {
        /// The link carried `target` bits a second: the estimate is at least that now.
        case passed(target: Int)
        case failed
    }

    public private(set) var probe: Probe?
    private var aftermath: Aftermath?
    private var schedule = ProbeSchedule()
    /// What transport-cc feedback said of the packets sent since the probe under way started
    /// (nil: no probe, or a subscriber without transport-cc).
    private var arrivals: ProbeArrivals?
    /// Padding bytes sent since the last report took them (they count as sent).
    private var paddingBytes = 0

    public init() {}

    /// Whether a probe may start at `now` toward steps that cost `wanted` in all (0: none) on an
    /// `estimate`: none under way, no failure's wait running, and the steps within `reach`.
    public func mayStart(wanted: Int, estimate: Int, now: ContinuousClock.Instant) -> Bool {
        wanted > 0 && Double(estimate) * Self.reach >= Double(wanted) && probe == nil && schedule.mayStart(now: now)
    }

    /// Starts a probe of `target` (`switchesLayer`: it moves some track to another simulcast
    /// layer) on top of the `mediaBitrate` sent lately; `firstTransportSequence` is the next
    /// transport-wide number, where the subscriber sends transport-cc feedback.
    public mutating func start(target: Int, switchesLayer: Bool, mediaBitrate: Int, packetsSent: Int,
                               firstTransportSequence: UInt16?, now: ContinuousClock.Instant) {
        // A quarter more is room for the new simulcast layer's keyframe; a move up between
        // temporal layers of the same one needs none (on a link that carries the whole lowest
        // layer with little to spare, the quarter failed every probe back from half its frames).
        let headroom = switchesLayer ? 1.25 : 1.05
        probe = Probe(until: now + Self.duration, bitsPerSecond: max(Int(Double(target) * headroom) - mediaBitrate, Self.minimumBitrate),
                      target: target, mediaBitrate: mediaBitrate, packetsAtStart: packetsSent)
        arrivals = firstTransportSequence.map(ProbeArrivals.init(firstSequence:))
        schedule.started()
    }

    /// `count` sequence numbers newly NACKed (RFC 4585 §6.2.1), `packetsSent` media packets
    /// forwarded in all. Returns whether the probe under way was given up, as failed.
    public mutating func nacked(count: Int, packetsSent: Int, now: ContinuousClock.Instant) -> Bool {
        guard let running = probe, schedule.nacked(count: count, sentSinceStart: packetsSent - running.packetsAtStart, now: now) else {
            return false
        }
        stop(now: now, failed: true)
        return true
    }

    /// One packet's fate from transport-cc feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1).
    public mutating func transportArrival(sequence: UInt16, arrived: Bool) {
        arrivals?.record(sequence: sequence, arrived: arrived)
    }

    /// After a feedback packet's arrivals: a probe whose own packets (its padding among them)
    /// are lost fails now. Returns whether it was given up.
    public mutating func giveUpIfItsPacketsAreLost(now: ContinuousClock.Instant) -> Bool {
        guard arrivals?.failsNow == true else { return false }
        return giveUp(now: now)
    }

    /// Fails the probe under way now (a delay over-use). Returns whether there was one.
    public mutating func giveUp(now: ContinuousClock.Instant) -> Bool {
        guard probe != nil else { return false }
        schedule.ended(passed: false, now: now)
        stop(now: now, failed: true)
        return true
    }

    /// A report's `loss` judges the probe under way once its `duration` is over (nil: none due).
    public mutating func judge(loss: Double, now: ContinuousClock.Instant) -> Verdict? {
        guard let running = probe, now >= running.until else { return nil }
        let passed = max(loss, arrivals?.loss ?? 0) < ProbeSchedule.lossToGiveUp
        stop(now: now, failed: !passed)
        schedule.ended(passed: passed, now: now)
        return passed ? .passed(target: running.target) : .failed
    }

    /// A report with `clean` reception (no loss, a steady delay) of the interval from `start`:
    /// once no probe runs and the interval began after the last one stopped, its aftermath is over.
    public mutating func reported(clean: Bool, since start: ContinuousClock.Instant) {
        guard let after = aftermath, probe == nil, start >= after.stoppedAt, clean else { return }
        aftermath = nil
    }

    /// The stream the probe padded went away: it stops unjudged, with no aftermath and no wait.
    public mutating func cancel() {
        schedule.cancelled()
        probe = nil
        arrivals = nil
    }

    /// Padding packets of `packetBytes` on the wire due this tick (nil: no probe under way).
    public mutating func paddingDue(packetBytes: Double) -> Int? {
        guard var running = probe else { return nil }
        running.owed += Double(running.bitsPerSecond) / 8 * Self.tickSeconds
        let count = Int(running.owed / packetBytes)
        running.owed -= Double(count) * packetBytes
        probe = running
        return count
    }

    /// `bytes` of padding went out.
    public mutating func paddingSent(bytes: Int) { paddingBytes += bytes }

    /// The padding bytes sent since the last call.
    public mutating func takePaddingBytes() -> Int {
        defer { paddingBytes = 0 }
        return paddingBytes
    }

    /// What the media alone was sent at before the probe under way, or before the last one
    /// while its aftermath runs (0: neither): loss and over-use then are the padding's.
    public func carriedBeforeProbe(now: ContinuousClock.Instant) -> Int {
        probe?.mediaBitrate ?? currentAftermath(now: now)?.carried ?? 0
    }

    /// Whether a failed probe's aftermath runs: the layers held then stay.
    public func keepsLayersAfterFailedProbe(now: ContinuousClock.Instant) -> Bool {
        currentAftermath(now: now)?.failed ?? false
    }

    private func currentAftermath(now: ContinuousClock.Instant) -> Aftermath? {
        aftermath.flatMap { now - $0.stoppedAt < Self.longestAftermath ? $0 : nil }
    }

    private mutating func stop(now: ContinuousClock.Instant, failed: Bool) {
        if let running = probe { aftermath = Aftermath(carried: running.mediaBitrate, stoppedAt: now, failed: failed) }
        probe = nil
        arrivals = nil
    }
}
