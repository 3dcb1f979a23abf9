/// Counts video freezes the way WebRTC statistics define them (W3C webrtc-stats,
/// `RTCInboundRtpStreamStats.freezeCount`): a freeze is an interval between two consecutive
/// frames that is at least `max(3 × avg, avg + 150 ms)`, where `avg` is the mean of the last 30
/// intervals. At 30 fps that is 150 + 33 ms; at 5 fps, 600 ms.
///
/// `freezeCount` and `totalFreezesDuration` are the W3C members; `longFreezeCount` counts the
/// freezes of at least `longFreezeMicros` (500 ms), the ones a viewer notices as a stall, and
/// `longestFreezeMicros` is the worst one.
public struct FreezeDetector: Sendable {
    public static let window = 30
    public static let longFreezeMicros: UInt64 = 500_000

    private var intervals: [UInt64] = []
    private var next = 0
    private var sum: UInt64 = 0
    private var lastFrameMicros: UInt64?
    public private(set) var freezeCount = 0
    public private(set) var totalFreezesMicros: UInt64 = 0
    public private(set) var longFreezeCount = 0
    public private(set) var longestFreezeMicros: UInt64 = 0

    public init() {}

    /// Seconds spent frozen, as `totalFreezesDuration`.
    public var totalFreezesDuration: Double { Double(totalFreezesMicros) / 1_000_000 }

    /// A frame was shown (decoded) at `micros` on a monotonic clock.
    public mutating func frameShown(atMicros micros: UInt64) {
        defer { lastFrameMicros = micros }
        guard let last = lastFrameMicros, micros > last else { return }
        let interval = micros - last
        // The threshold comes from the intervals before this one: a long gap must not raise its own bar.
        if !intervals.isEmpty {
            let average = sum / UInt64(intervals.count)
            if interval >= max(3 * average, average + 150_000) {
                freezeCount += 1
                totalFreezesMicros += interval
                longestFreezeMicros = max(longestFreezeMicros, interval)
                if interval >= Self.longFreezeMicros { longFreezeCount += 1 }
            }
        }
        if intervals.count < Self.window {
            intervals.append(interval)
        } else {
            sum -= intervals[next]
            intervals[next] = interval
            next = (next + 1) % Self.window
        }
        sum += interval
    }
}
