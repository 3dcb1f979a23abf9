import Metrics
import StageSFU

/// What the stream allocators chose, as `/metrics` gauges refreshed at each scrape: simulcast
/// video consumers by the layer they forward now; those, and the consumers of video sent
/// without simulcast but with temporal layers, by the temporal layer; and subscribers by their
/// downlink estimate (a cumulative histogram of a snapshot). Labels come from fixed sets, whatever the number of
/// subscribers or the rids publishers chose: layer `0`, `1`, `2`, `3+` (lowest first) or
/// `none` (nothing forwarded yet, or paused); VP8 temporal layer forwarded within it `0`, `1`,
/// `2` or `all` (every one, or the layer has none); estimate bounds in bits per second.
enum AllocationGauges {
    static let layerLabels = ["0", "1", "2", "3+"]
    static let temporalLabels = ["0", "1", "2", "all"]
    static let estimateBounds = [150_000, 300_000, 600_000, 1_200_000, 2_500_000, 5_000_000, 10_000_000]

    private static let consumersByLayer = Dictionary(uniqueKeysWithValues: (layerLabels + ["none"]).map {
        ($0, Gauge(label: "proscenium_media_video_consumers", dimensions: [("layer", $0)]))
    })
    private static let consumersByTemporalLayer = Dictionary(uniqueKeysWithValues: temporalLabels.map {
        ($0, Gauge(label: "proscenium_media_video_consumers_by_temporal_layer", dimensions: [("temporal", $0)]))
    })
    private static let subscribersByEstimate = (estimateBounds.map(String.init) + ["+Inf"]).map {
        Gauge(label: "proscenium_media_subscribers_by_downlink_estimate", dimensions: [("le", $0)])
    }

    /// A snapshot taken on the media event loop.
    struct Snapshot: Sendable {
        /// Current layer of each simulcast video consumer (nil: none).
        var layers: [Int?] = []
        /// The highest temporal layer each one forwards (nil: all), and each consumer of a single
        /// stream with temporal layers.
        var temporalLayers: [Int?] = []
        /// Each adapting subscriber's estimate, once it has reported.
        var estimates: [Int] = []
    }

    static func record(_ snapshot: Snapshot) {
        var counts = Dictionary(uniqueKeysWithValues: (layerLabels + ["none"]).map { ($0, 0) })
        for layer in snapshot.layers { counts[layer.map { layerLabels[min($0, layerLabels.count - 1)] } ?? "none", default: 0] += 1 }
        for (label, count) in counts { consumersByLayer[label]?.record(count) }
        var temporal = Dictionary(uniqueKeysWithValues: temporalLabels.map { ($0, 0) })
        for layer in snapshot.temporalLayers { temporal[layer.map { temporalLabels[min($0, 2)] } ?? "all", default: 0] += 1 }
        for (label, count) in temporal { consumersByTemporalLayer[label]?.record(count) }
        for (index, gauge) in subscribersByEstimate.enumerated() {
            let bound = index < estimateBounds.count ? estimateBounds[index] : Int.max
            gauge.record(snapshot.estimates.filter { $0 <= bound }.count)
        }
    }
}
