/// The delay-based half of Google congestion control (draft-ietf-rmcat-gcc-02 §5), run by the
/// sender on transport-cc feedback as browsers do: whether the queue on the way to one receiver
/// is growing (over-use), draining (under-use) or steady.
///
/// - Packets sent within `groupSpan` of each other form a group (§5.2: a video frame leaves in
///   a burst); between two groups, the one-way delay changed by the arrival gap minus the send gap.
/// - Those changes are summed and smoothed, and the slope of the smoothed delay over the last
///   `windowSize` groups is the trend (libwebrtc's trendline filter, which replaced §5.3's
///   Kalman filter in browsers).
/// - Over-use when the trend, scaled by `gain` and the number of samples, stays above an
///   adaptive threshold for more than `overuseTime` and two groups while still rising (§5.4);
///   under-use below minus the threshold; the threshold follows the trend's size slowly, so
///   a jittery link raises it and a steady one lowers it (§5.4, `K_u`, `K_d`).
public struct DelayTrendline: Sendable {
    public enum Usage: Sendable, Equatable { case normal, overusing, underusing }

    public static let groupSpan: Int64 = 5_000
    public static let windowSize = 20
    static let smoothing = 0.9
    static let gain = 4.0
    static let overuseTime = 10.0
    static let thresholdUp = 0.0087, thresholdDown = 0.039
    static let thresholdRange = 6.0...600.0

    public private(set) var usage = Usage.normal
    /// The adaptive threshold, in milliseconds of scaled trend.
    public private(set) var threshold = 12.5

    private struct Group { var firstSent: Int64; var lastSent: Int64; var lastArrived: Int64 }
    private var current: Group?
    private var previous: Group?
    private var firstArrival: Int64?
    private var deltas = 0
    private var accumulated = 0.0
    private var smoothed = 0.0
    private var samples: [(x: Double, y: Double)] = []
    private var previousTrend = 0.0
    private var timeOverusing = -1.0
    private var overuseCount = 0
    private var lastThresholdUpdate: Double?

    public init() {}

    /// One packet reported received: sent at `sentAt` (our clock), arrived at `arrivedAt` (the
    /// receiver's), both in microseconds, in the order the feedback lists them.
    public mutating func packet(sentAt: Int64, arrivedAt: Int64) {
        guard var group = current else {
            current = Group(firstSent: sentAt, lastSent: sentAt, lastArrived: arrivedAt)
            return
        }
        // Sent before the group under way: reordered on our side or a retransmission; skipped.
        guard sentAt >= group.firstSent else { return }
        if sentAt - group.firstSent <= Self.groupSpan {
            group.lastSent = max(group.lastSent, sentAt)
            group.lastArrived = max(group.lastArrived, arrivedAt)
            current = group
            return
        }
        if let previous {
            let sendDelta = Double(group.lastSent - previous.lastSent) / 1000
            let arrivalDelta = Double(group.lastArrived - previous.lastArrived) / 1000
            update(delayChange: arrivalDelta - sendDelta, sendDelta: sendDelta, arrival: group.lastArrived)
        }
        previous = group
        current = Group(firstSent: sentAt, lastSent: sentAt, lastArrived: arrivedAt)
    }

    private mutating func update(delayChange: Double, sendDelta: Double, arrival: Int64) {
        let first = firstArrival ?? arrival
        firstArrival = first
        deltas = min(deltas + 1, 1000)
        accumulated += delayChange
        smoothed = Self.smoothing * smoothed + (1 - Self.smoothing) * accumulated
        let now = Double(arrival - first) / 1000
        samples.append((now, smoothed))
        if samples.count > Self.windowSize { samples.removeFirst() }
        guard samples.count == Self.windowSize, let trend = Self.slope(samples) else { return }
        detect(trend: trend, sendDelta: sendDelta, now: now)
    }

    /// Least-squares slope of y over x; nil when every x is the same.
    static func slope(_ points: [(x: Double, y: Double)]) -> Double? {
        let meanX = points.reduce(0) { $0 + $1.x } / Double(points.count)
        let meanY = points.reduce(0) { $0 + $1.y } / Double(points.count)
        var numerator = 0.0, denominator = 0.0
        for point in points {
            numerator += (point.x - meanX) * (point.y - meanY)
            denominator += (point.x - meanX) * (point.x - meanX)
        }
        return denominator == 0 ? nil : numerator / denominator
    }

    private mutating func detect(trend: Double, sendDelta: Double, now: Double) {
        let modified = Double(min(deltas, 60)) * trend * Self.gain
        if modified > threshold {
            timeOverusing = timeOverusing < 0 ? sendDelta / 2 : timeOverusing + sendDelta
            overuseCount += 1
            if timeOverusing > Self.overuseTime, overuseCount > 1, trend >= previousTrend {
                timeOverusing = 0
                overuseCount = 0
                usage = .overusing
            }
        } else {
            timeOverusing = -1
            overuseCount = 0
            usage = modified < -threshold ? .underusing : .normal
        }
        previousTrend = trend
        adaptThreshold(modified: modified, now: now)
    }

    private mutating func adaptThreshold(modified: Double, now: Double) {
        let last = lastThresholdUpdate ?? now
        lastThresholdUpdate = now
        // A spike far above the threshold (a sudden reroute) does not drag it up.
        guard abs(modified) <= threshold + 15 else { return }
        let rate = abs(modified) < threshold ? Self.thresholdDown : Self.thresholdUp
        threshold += rate * (abs(modified) - threshold) * min(now - last, 100)
        threshold = min(max(threshold, Self.thresholdRange.lowerBound), Self.thresholdRange.upperBound)
    }
}
