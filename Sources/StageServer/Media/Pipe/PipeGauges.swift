import Metrics

/// The open pipes between routers, as `/metrics` gauges refreshed at each scrape (totals over
/// the pipes open now): how many, the packets their origin ends sent and their far ends
/// received, the sequence numbers far ends asked for again and those resent, the keyframe
/// requests that came back to the origin, and the delay a pipe adds (`PipeDelay`: the mean and
/// the largest over the pipes measured; 0 when none is).
enum PipeGauges {
    struct Activity: Sendable, Equatable {
        var pipes = 0
        var packetsSent = 0
        var packetsReceived = 0
        var nacked = 0
        var resent = 0
        var keyframeRequests = 0
        /// Each measured pipe's one-way delay, in seconds.
        var delays: [Double] = []

        mutating func add(_ other: Activity) {
            pipes += other.pipes
            packetsSent += other.packetsSent
            packetsReceived += other.packetsReceived
            nacked += other.nacked
            resent += other.resent
            keyframeRequests += other.keyframeRequests
            delays += other.delays
        }
    }

    private static let pipes = Gauge(label: "proscenium_media_pipes")
    private static let packetsSent = Gauge(label: "proscenium_media_pipe_packets", dimensions: [("direction", "sent")])
    private static let packetsReceived = Gauge(label: "proscenium_media_pipe_packets", dimensions: [("direction", "received")])
    private static let nacked = Gauge(label: "proscenium_media_pipe_nacked_packets", dimensions: [("outcome", "asked")])
    private static let resent = Gauge(label: "proscenium_media_pipe_nacked_packets", dimensions: [("outcome", "resent")])
    private static let keyframeRequests = Gauge(label: "proscenium_media_pipe_keyframe_requests")
    private static let meanDelay = Gauge(label: "proscenium_media_pipe_delay_seconds", dimensions: [("stat", "mean")])
    private static let maxDelay = Gauge(label: "proscenium_media_pipe_delay_seconds", dimensions: [("stat", "max")])

    static func record(_ activity: Activity) {
        pipes.record(activity.pipes)
        packetsSent.record(activity.packetsSent)
        packetsReceived.record(activity.packetsReceived)
        nacked.record(activity.nacked)
        resent.record(activity.resent)
        keyframeRequests.record(activity.keyframeRequests)
        meanDelay.record(activity.delays.isEmpty ? 0 : activity.delays.reduce(0, +) / Double(activity.delays.count))
        maxDelay.record(activity.delays.max() ?? 0)
    }
}
