import Metrics
import Synchronization

/// Names of the server's metrics (Prometheus, scraped at `/metrics`).
enum ServerMetrics {
    static func apiRequest(operation: String, outcome: String) {
        Counter(label: "proscenium_api_requests_total", dimensions: [("operation", operation), ("outcome", outcome)]).increment()
    }

    static func signalingMessage(type: String) {
        counter("proscenium_signaling_messages_total", "type", type).increment()
    }

    /// A client frame refused, by signaling error code name.
    static func signalingRejected(reason: String) {
        counter("proscenium_signaling_rejected_total", "reason", reason).increment()
    }

    /// Counters of the signaling path, created once per label value (it runs per message).
    private static let counters = Mutex<[String: Counter]>([:])

    private static func counter(_ label: String, _ dimension: String, _ value: String) -> Counter {
        counters.withLock { cache in
            let key = label + "|" + value
            if let counter = cache[key] { return counter }
            let counter = Counter(label: label, dimensions: [(dimension, value)])
            cache[key] = counter
            return counter
        }
    }

    static let connectedParticipants = Gauge(label: "proscenium_participants_connected")
    static let publishingParticipants = Gauge(label: "proscenium_participants_publishing")
    static let activeSessions = Gauge(label: "proscenium_stage_sessions_active")

    /// Media peer connections by role, and the consumers of the subscribe ones: what a soak
    /// compares with the clients it knows are live (a peer that vanished stays until its
    /// consent expires).
    static let publishPeers = Gauge(label: "proscenium_media_peers", dimensions: [("role", "publish")])
    static let subscribePeers = Gauge(label: "proscenium_media_peers", dimensions: [("role", "subscribe")])
    static let consumers = Gauge(label: "proscenium_media_consumers")

    /// Updates the media session gauges (on the media event loop, when a session opens or closes).
    static func mediaSessions(publishers: Int) { publishPeers.record(publishers) }
    static func mediaSessions(subscribers: Int, consumers count: Int) {
        subscribePeers.record(subscribers)
        consumers.record(count)
    }
}
