/// How many bits per second a publisher without transport-cc may send, advertised to it in REMB
/// (draft-alvestrand-rmcat-remb-03): the loss-based half of Google congestion control
/// (draft-ietf-rmcat-gcc-02 §6) run on the receiving side, once a second, from the loss the
/// server saw on the publisher's streams (before any repair) and the bitrate that arrived.
///
/// A publisher that negotiated transport-cc runs its own estimator on the server's feedback
/// (`TransportFeedbackRecorder`) and is not held by this one.
///
/// - More than 10 % lost: the link is full; down to 0.85 × what arrived (GCC's decrease) and
///   at least by half the loss. Without it a sender whose only limit is the REMB keeps its
///   rate, and its retransmissions of what the full queue dropped add to the overload.
/// - Under 2 % lost: up by `increaseFactor`, while what arrives uses at least half the estimate
///   (an estimate far above the traffic would say nothing about the link).
/// - Between: unchanged.
public struct UplinkEstimator: Sendable {
    public static let minimum = 100_000
    /// What every publisher was told before anything was measured, and still is on a clean link.
    public static let maximum = 6_000_000
    /// GCC's 8 % a second would take half a minute from a narrow spell back to a 2.5 Mbps
    /// link; an encoder follows small steps smoothly, so somewhat faster.
    public static let increaseFactor = 1.15

    public private(set) var estimate = UplinkEstimator.maximum

    public init() {}

    /// One second's reception: `receivedBitrate` arrived and `fractionLost` of the packets did not.
    public mutating func update(receivedBitrate: Int, fractionLost: Double) {
        let loss = min(max(fractionLost, 0), 1)
        if loss > 0.10 {
            let halved = Int((Double(estimate) * (1 - 0.5 * loss)).rounded())
            estimate = min(halved, Int((Double(receivedBitrate) * 0.85).rounded()))
        } else if loss < 0.02, receivedBitrate * 2 >= estimate {
            estimate = Int((Double(estimate) * Self.increaseFactor).rounded())
        }
        estimate = min(max(estimate, Self.minimum), Self.maximum)
    }
}
