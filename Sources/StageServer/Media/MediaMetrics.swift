import Metrics
import StageSFU
import StageTransport
import StageWire

/// The media path's counters besides drops (`MediaDropReason`): what was forwarded, NACKs,
/// PLIs and keyframe requests. Every label comes from a fixed enum (bounded series) and every
/// counter is built once, on first use: the forwarding path runs per packet.
final class MediaMetrics: ForwardingObserver, Sendable {
    /// The one observer every producer reports to.
    static let shared = MediaMetrics()

    /// RTP packets and their bytes (RTP header and payload, before SRTP) sent to subscribers,
    /// retransmissions included.
    struct Forwarded: Sendable {
        let packets: Counter
        let bytes: Counter

        init(kind: MediaKind) {
            packets = Counter(label: "proscenium_media_forwarded_packets_total", dimensions: [("kind", kind.rawValue)])
            bytes = Counter(label: "proscenium_media_forwarded_bytes_total", dimensions: [("kind", kind.rawValue)])
        }

        func count(bytes length: Int) {
            packets.increment()
            bytes.increment(by: Int64(length))
        }
    }

    let audio = Forwarded(kind: .audio)
    let video = Forwarded(kind: .video)
    /// Sequence numbers subscribers reported lost (RFC 4585 generic NACK).
    let nacksReceived = Counter(label: "proscenium_media_nacks_received_total")
    /// Of those, the packets resent from the cache.
    let nacksAnswered = Counter(label: "proscenium_media_nacks_answered_total")
    /// Keyframe requests (PLI, one per entry of a FIR) from subscribers.
    let plisReceived = Counter(label: "proscenium_media_plis_received_total")
    /// Sequence numbers asked of publishers again (NACKs towards them) for upstream loss.
    let nacksSent = Counter(label: "proscenium_media_nacks_sent_total")
    /// RTX packets (RFC 4588) from publishers restored to the packet they repair.
    let retransmissionsReceived = Counter(label: "proscenium_media_rtx_received_total")
    /// Receiver estimates (REMB, draft-alvestrand-rmcat-remb-03) from subscribers: what a
    /// receiver without transport-cc tells of its link.
    let rembsReceived = Counter(label: "proscenium_media_rembs_received_total")
    /// Compound packets from subscribers with transport-cc feedback in them.
    let transportFeedbackReceived = Counter(label: "proscenium_media_transport_feedback_received_total")
    /// Over-uses of a subscriber's link seen in its delay that cut its estimate.
    let delayOveruses = Counter(label: "proscenium_media_downlink_delay_overuses_total")
    /// Link probes before a subscriber moves up a layer (padding on its RTX stream), by outcome.
    let probesPassed = Counter(label: "proscenium_media_probes_total", dimensions: [("result", "passed")])
    let probesFailed = Counter(label: "proscenium_media_probes_total", dimensions: [("result", "failed")])
    /// Ended early: the subscriber NACKed media lost under the padding (`ProbeSchedule`), or its
    /// transport-cc feedback showed its queue growing (`DelayTrendline`).
    let probesGivenUp = Counter(label: "proscenium_media_probes_total", dimensions: [("result", "given_up")])
    /// A subscriber's layer ceiling moved by the stream allocator, by direction.
    let allocationsUp = Counter(label: "proscenium_media_layer_allocations_total", dimensions: [("direction", "up")])
    let allocationsDown = Counter(label: "proscenium_media_layer_allocations_total", dimensions: [("direction", "down")])
    /// Simulcast layers publishers were told to stop or start sending (dynacast).
    let layersPaused = Counter(label: "proscenium_media_dynacast_layers_total", dimensions: [("change", "paused")])
    let layersResumed = Counter(label: "proscenium_media_dynacast_layers_total", dimensions: [("change", "resumed")])
    /// Transport-cc feedback packets sent to publishers (draft-holmer-rmcat-transport-wide-cc-extensions-01).
    let transportFeedbackSent = Counter(label: "proscenium_media_transport_feedback_sent_total")
    /// Video packets to subscribers held back by their pacer (a burst spread out at a multiple of the estimate).
    let pacedPackets = Counter(label: "proscenium_media_paced_packets_total")
    /// PLIs sent to publishers.
    let plisSent = Counter(label: "proscenium_media_plis_sent_total")
    private let keyframeRequests: [KeyframeRequestReason: Counter] = Dictionary(uniqueKeysWithValues: KeyframeRequestReason.allCases.map {
        ($0, Counter(label: "proscenium_media_keyframe_requests_total", dimensions: [("reason", $0.rawValue)]))
    })

    func forwarded(_ kind: MediaKind) -> Forwarded { kind == .audio ? audio : video }

    func dropped(_ drop: ForwardingDrop) { MediaDropReason(drop).count() }

    func keyframeRequested(_ reason: KeyframeRequestReason) { keyframeRequests[reason]?.increment() }

    func retransmissionRequested(count: Int) { nacksSent.increment(by: Int64(count)) }

    func retransmitted(requested: Int, answered: Int) {
        nacksReceived.increment(by: Int64(requested))
        if answered > 0 { nacksAnswered.increment(by: Int64(answered)) }
    }
}

extension MediaDropReason {
    /// The drop reason an SFU drop is counted under.
    init(_ drop: ForwardingDrop) {
        switch drop {
        case .muted: self = .muted
        case .consumerPaused: self = .consumerPaused
        case .layerNotSelected: self = .layerNotSelected
        case .nackNotCached: self = .nackNotCached
        case .duplicate: self = .duplicate
        case .keyframeRequestThrottled: self = .keyframeRequestThrottled
        }
    }
}
