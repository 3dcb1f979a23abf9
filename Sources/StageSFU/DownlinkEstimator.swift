/// How many bits per second one subscriber's link carries, estimated from what it reports:
/// the loss-based half of Google congestion control (draft-ietf-rmcat-gcc-02 §6) driven by its
/// receiver reports (RFC 3550 §6.4.2), bounded by its own estimate when it sends REMB
/// (draft-alvestrand-rmcat-remb-03) and that estimate is below what is being sent.
///
/// Why only then: a receive-side estimator (GCC's delay-based half, as in Chromium) keeps its
/// estimate within 1.5 × what arrives while nothing is over-used, so while the SFU sends a
/// middle layer the REMB stays near that layer's rate. Taken as a bound it would never let the
/// subscriber try the layer above, and would keep a browser on a wide link on the middle layer
/// for good. A REMB that *fell* below what is sent is the receiver saying the link is over-used
/// (GCC's decrease: 0.85 × what arrived): that one bounds the estimate, until a REMB rises
/// again. One that is rising, though still below what is sent, is a receiver ramping up behind
/// a step up (GCC increases by at most 8 % a second, and ignores probes once its estimate is
/// valid): it bounds nothing, or an abs-send-time receiver (aiortc, Chromium) would hold every
/// move up back for tens of seconds.
///
/// - More than 10 % lost: down by half the loss, as GCC's `As(i) = As(i−1)(1 − 0.5p)`; and
///   down to what got through (the rate sent × (1 − loss)) when more than `randomLossBound`
///   was lost or the delay is not steady or not measured: a link that lost a quarter of what
///   was sent is at its limit, and the delivered rate is its best measure. Between 10 % and
///   that bound with a steady delay, the loss may be a lossy link's random drops: a report of
///   85 packets on a link dropping 5 % at random showed more than 10 % in 2 of 29 reports, and
///   each cut a 20 Mbps estimate to what was sent then, where the subscriber stayed. Without a
///   delay to tell them apart (a subscriber without transport-cc), such a loss is taken for a
///   full link (cut by half the loss only, aiortc on a link narrowed to 300 kbps stayed on the
///   640 px layer for 16 s).
/// - Under 2 % lost: up by `increaseFactor` a report, to at most `untestedFactor` × what is
///   sent (GCC's bound on an estimate the traffic has not tested, §5.5), or past that while the
///   estimate is below what the allocator wants to try next (the next step up: trying it is
///   the probe). Bounded by twice what was sent, the estimate climbed to 2.6 × it untested: a
///   subscriber on a 300 kbps link, sent 165 kbps, was estimated at 430 kbps, and its probes
///   tried two steps at once, overflowed, and kept it on half the lowest layer's frames.
/// - Between: unchanged.
/// - While a probe is under way, never up: the probe is the test of the next step, and what
///   it sends is mostly padding. Raised by the reports during a probe (what is sent, padding
///   included, doubled), the estimate reached two steps up by the time the probe for one passed,
///   and the allocation took both: a subscriber on a 300 kbps link went from 320 to 1280 px.
///
/// With transport-cc feedback from the subscriber, the delay-based half runs too
/// (`DelayTrendline`): at over-use the estimate drops to `overuseFactor` × what arrived lately
/// (GCC's decrease, §5.5), the next report's loss cuts nothing more, and while the delay is not
/// steady the estimate is not raised.
public struct DownlinkEstimator: Sendable {
    public static let minimum = 100_000
    public static let maximum = 20_000_000
    /// GCC increases by 8 % a second; faster here, because layers are coarse steps and a
    /// subscriber back on a good link should see the top layer within seconds.
    public static let increaseFactor = 1.3
    /// How far above what is sent the estimate climbs untested (GCC's `A_hat < 1.5 R_hat`).
    public static let untestedFactor = 1.5
    /// GCC's β: the share of the arrived rate an over-used link is given.
    public static let overuseFactor = 0.85
    /// Loss above which a report with a steady delay cuts the estimate to what got through.
    public static let randomLossBound = 0.2

    /// Starts at the maximum: until a report says otherwise, every layer fits (what the SFU
    /// did before it estimated anything).
    public private(set) var estimate: Int = DownlinkEstimator.maximum
    /// The subscriber's own estimate (REMB), if it sends one.
    public private(set) var receiverEstimate: Int?
    /// The delay cut the estimate since the last receiver report: that report's loss is the same
    /// over-use, already answered from what arrived (the better measure), and cuts nothing more.
    private var cutByDelay = false
    /// Its last REMB fell (by more than 5 %), or was its first: it is not ramping up.
    private var receiverEstimateFell = false

    public init() {}

    /// The subscriber's queue as its delay shows it, beside a receiver report.
    public enum DelayTrend: Sendable {
        /// Neither growing nor draining.
        case steady
        /// Growing or draining (over- or under-use): the link is at its limit.
        case changing
        /// Not measured (a subscriber without transport-cc): its loss is all there is to go by.
        case unmeasured
    }

    /// A receiver report's loss over an interval in which `sentBitrate` was sent to the subscriber.
    /// - Parameter wanted: the rate the allocator would try next (0: none).
    /// - Parameter delay: what the delay-based detector says of the subscriber's queue
    ///   (`DelayTrend`): a loss of 10–20 % cuts gently only when it is `steady`, and no increase
    ///   while it is `changing`.
    /// - Parameter probing: a probe of the link is under way (or judged by this report): no increase.
    /// - Parameter carried: a rate the link carried without loss just before the loss this
    ///   report shows (what a failed probe added padding to): the loss cuts no lower (0: none).
    public mutating func receiverReport(fractionLost: Double, sentBitrate: Int, wanted: Int = 0, delay: DelayTrend = .steady,
                                        probing: Bool = false, carried: Int = 0) {
        let loss = min(max(fractionLost, 0), 1)
        defer { cutByDelay = false }
        if loss > 0.10, !cutByDelay {
            var cut = Int((Double(estimate) * (1 - 0.5 * loss)).rounded())
            if loss > Self.randomLossBound || delay != .steady {
                let delivered = Int((Double(sentBitrate) * (1 - loss)).rounded())
                cut = min(cut, max(delivered, Self.minimum))
            }
            estimate = max(cut, min(carried, estimate))
        } else if loss < 0.02, delay != .changing, !probing {
            let raised = Int((Double(estimate) * Self.increaseFactor).rounded())
            let untested = Int((Double(sentBitrate) * Self.untestedFactor).rounded())
            if estimate < wanted {
                estimate = raised
            } else if untested > estimate {
                estimate = min(raised, untested)
            }
        }
        let overUsed = receiverEstimateFell && (receiverEstimate.map { $0 < sentBitrate } ?? false)
        estimate = min(max(estimate, Self.minimum), overUsed ? receiverEstimate ?? Self.maximum : Self.maximum, Self.maximum)
    }

    /// The delay says the link is over-used and `ackedBitrate` arrived lately: down to
    /// `overuseFactor` of that, if lower, and not below `carried`, a rate the link was seen to
    /// carry with a steady delay just before (0: none). Returns whether the estimate fell.
    @discardableResult
    public mutating func delayOverused(ackedBitrate: Int, carried: Int = 0) -> Bool {
        // Not raised by `carried`: the guard below keeps an estimate already under it.
        let decreased = max(Int((Double(ackedBitrate) * Self.overuseFactor).rounded()), carried, Self.minimum)
        guard decreased < estimate else { return false }
        estimate = decreased
        cutByDelay = true
        return true
    }

    /// A probe of steps that need `testedBitrate` (audio included, its headroom not) passed:
    /// the estimate is at least that, as GCC's probe controller takes what a passed probe
    /// cluster carried. Those steps then fit, though their rates, measured anew each second,
    /// came out a little above what the probe was started for.
    public mutating func probePassed(testedBitrate: Int) {
        estimate = min(max(estimate, testedBitrate), Self.maximum)
    }

    /// The subscriber's latest REMB; the next receiver report weighs it against what was sent.
    public mutating func receiverEstimate(bitsPerSecond: Int) {
        let value = max(bitsPerSecond, Self.minimum)
        if let previous = receiverEstimate {
            if value * 20 < previous * 19 { receiverEstimateFell = true } else if value > previous { receiverEstimateFell = false }
        } else {
            receiverEstimateFell = true
        }
        receiverEstimate = value
    }
}
