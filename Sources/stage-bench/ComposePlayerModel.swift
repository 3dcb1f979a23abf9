import Foundation

/// One video frame of a recorded rendition, timed three ways.
struct TimedFrame: Sendable {
    /// Presentation time on the rendition's timeline, seconds.
    var media: Double
    /// When its part (LOW) or segment (NORMAL) had arrived at the client, monotonic µs.
    var availableMicros: UInt64
    /// Its part or segment was fetched the moment it was listed (not from the first backlog).
    var live: Bool
    /// The test camera's capture time read from its pixels, monotonic µs; nil if unreadable.
    var captureMicros: UInt64?
}

/// A simulated player (the model the figures use):
///
/// - it joins at time T, loading the playlist; the live edge E is the media end time of the
///   last part listed (LOW) or of the last complete segment listed (NORMAL) in the newest
///   playlist the client had received by T;
/// - it starts playback at S = E − hold-back (PART-HOLD-BACK, or 3 target durations for
///   NORMAL), at time T (or when the part holding S has arrived, if later), and its playback
///   clock then advances in real time: media time m is on screen at T + (m − S);
/// - if a frame's part or segment has not arrived when its time comes, the player stalls until
///   it does, and the clock stays that much later from then on (counted as a stall);
/// - glass-to-glass of a frame = on-screen time − capture time stamped in its pixels.
///
/// Players join every 50 ms over one segment duration (every phase of the playlist's updates)
/// and each watches to the end of the recording; the figures pool every (player, frame).
enum ComposePlayerModel {
    struct Result {
        var latencies: [Double] = []
        var players = 0
        var stalls = 0
        /// Each player's median glass-to-glass, s.
        var playerMedians: [Double] = []
    }

    static func simulate(frames: [TimedFrame], edges: [(atMicros: UInt64, edge: Double)], holdBack: Double,
                         joinFrom: UInt64, joinSpan: Double) -> Result {
        var result = Result()
        let sorted = frames.sorted { $0.media < $1.media }
        guard let firstMedia = sorted.first?.media else { return result }
        var join = joinFrom
        while join < joinFrom + UInt64(joinSpan * 1e6) {
            defer { join += 50_000 }
            guard let edge = edges.last(where: { $0.atMicros <= join })?.edge else { continue }
            let start = edge - holdBack
            guard start >= firstMedia, let first = sorted.firstIndex(where: { $0.media >= start - 1e-6 }) else { continue }
            result.players += 1
            var shift: Int64 = 0
            var mine: [Double] = []
            for (index, frame) in sorted[first...].enumerated() {
                var onScreen = Int64(join) + Int64(((frame.media - start) * 1e6).rounded()) + shift
                if Int64(frame.availableMicros) > onScreen {
                    shift += Int64(frame.availableMicros) - onScreen
                    onScreen = Int64(frame.availableMicros)
                    if index > 0 { result.stalls += 1 }
                }
                guard let capture = frame.captureMicros else { continue }
                mine.append(Double(onScreen - Int64(capture)) / 1e6)
            }
            result.latencies += mine
            if !mine.isEmpty { result.playerMedians.append(percentile(mine, 50)) }
        }
        return result
    }
}
