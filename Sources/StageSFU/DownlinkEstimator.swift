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
/// - More than 10 % lost: down to what got through (the rate sent × (1 − loss)), and at least
///   by half the loss, as GCC's `As(i) = As(i−1)(1 − 0.5p)`; a link that lost a quarter of
///   what was sent is at its limit, and the delivered rate is its best measure.
/// - Under 2 % lost: up by `increaseFactor` a report, while what is sent uses at least half of
///   the estimate, or while the estimate is below what the allocator wants to try next (the
///   next layer up: trying it is the probe); beyond both, an estimate far above the traffic
///   would tell nothing, so it is not raised further.
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
    /// GCC's β: the share of the arrived rate an over-used link is given.
    public static let overuseFactor = 0.85

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

    /// A receiver report's loss over an interval in which `sentBitrate` was sent to the subscriber.
    /// - Parameter wanted: the rate the allocator would try next (0: none).
    /// - Parameter delaySteady: false while the delay-based detector sees the queue grow or drain: no increase then.
    /// - Parameter probing: a probe of the link is under way (or judged by this report): no increase.
    public mutating func receiverReport(fractionLost: Double, sentBitrate: Int, wanted: Int = 0, delaySteady: Bool = true,
                                        probing: Bool = false) {
        let loss = min(max(fractionLost, 0), 1)
        defer { cutByDelay = false }
        if loss > 0.10, !cutByDelay {
            let delivered = Int((Double(sentBitrate) * (1 - loss)).rounded())
            estimate = min(Int((Double(estimate) * (1 - 0.5 * loss)).rounded()), max(delivered, Self.minimum))
        } else if loss < 0.02, delaySteady, !probing, sentBitrate * 2 >= estimate || estimate < wanted {
            estimate = Int((Double(estimate) * Self.increaseFactor).rounded())
        }
        let overUsed = receiverEstimateFell && (receiverEstimate.map { $0 < sentBitrate } ?? false)
        estimate = min(max(estimate, Self.minimum), overUsed ? receiverEstimate ?? Self.maximum : Self.maximum, Self.maximum)
    }

    /// The delay says the link is over-used and `ackedBitrate` arrived lately: down to
    /// `overuseFactor` of that, if lower. Returns whether the estimate fell.
    @discardableResult
    public mutating func delayOverused(ackedBitrate: Int) -> Bool {
        let decreased = max(Int((Double(ackedBitrate) * Self.overuseFactor).rounded()), Self.minimum)
        guard decreased < estimate else { return false }
        estimate = decreased
        cutByDelay = true
        return true
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
