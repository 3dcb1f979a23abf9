import Metrics

/// Names of the server's metrics (Prometheus, scraped at `/metrics`).
enum ServerMetrics {
    static func apiRequest(operation: String, outcome: String) {
        Counter(label: "proscenium_api_requests_total", dimensions: [("operation", operation), ("outcome", outcome)]).increment()
    }

    static func signalingMessage(type: String) {
        Counter(label: "proscenium_signaling_messages_total", dimensions: [("type", type)]).increment()
    }

    /// A client frame refused, by signaling error code name.
    static func signalingRejected(reason: String) {
        Counter(label: "proscenium_signaling_rejected_total", dimensions: [("reason", reason)]).increment()
    }

    static let connectedParticipants = Gauge(label: "proscenium_participants_connected")
    static let publishingParticipants = Gauge(label: "proscenium_participants_publishing")
    static let activeSessions = Gauge(label: "proscenium_stage_sessions_active")
}
