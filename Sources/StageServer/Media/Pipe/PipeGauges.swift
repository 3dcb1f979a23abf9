import Metrics

/// The open pipes between routers, as `/metrics` gauges refreshed at each scrape (totals over
/// the pipes open now): how many, the packets their origin ends sent and their far ends
/// received, the sequence numbers far ends asked for again and those resent, and the keyframe
/// requests that came back to the origin.
enum PipeGauges {
    struct Activity: Sendable, Equatable {
        var pipes = 0
        var packetsSent = 0
        var packetsReceived = 0
        var nacked = 0
        var resent = 0
        var keyframeRequests = 0

        mutating func add(_ other: Activity) {
            pipes += other.pipes
            packetsSent += other.packetsSent
            packetsReceived += other.packetsReceived
            nacked += other.nacked
            resent += other.resent
            keyframeRequests += other.keyframeRequests
        }
    }

    private static let pipes = Gauge(label: "proscenium_media_pipes")
    private static let packetsSent = Gauge(label: "proscenium_media_pipe_packets", dimensions: [("direction", "sent")])
    private static let packetsReceived = Gauge(label: "proscenium_media_pipe_packets", dimensions: [("direction", "received")])
    private static let nacked = Gauge(label: "proscenium_media_pipe_nacked_packets", dimensions: [("outcome", "asked")])
    private static let resent = Gauge(label: "proscenium_media_pipe_nacked_packets", dimensions: [("outcome", "resent")])
    private static let keyframeRequests = Gauge(label: "proscenium_media_pipe_keyframe_requests")

    static func record(_ activity: Activity) {
        pipes.record(activity.pipes)
        packetsSent.record(activity.packetsSent)
        packetsReceived.record(activity.packetsReceived)
        nacked.record(activity.nacked)
        resent.record(activity.resent)
        keyframeRequests.record(activity.keyframeRequests)
    }
}
