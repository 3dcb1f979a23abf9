import Foundation
import StageLayout

/// What the control plane asks of whatever runs compositions (the compositor supervisor):
/// start one from its validated plan, stop it. Progress comes back through `CompositionBoard`.
protocol CompositionRunner: Sendable {
    func start(_ plan: CompositionPlan) async
    func stop(compositionId: String) async
}

/// Everything a compositor needs to run one composition, resolved by the control plane from
/// the StartComposition request, the encoder configurations and the storage configuration.
struct CompositionPlan: Sendable, Equatable {
    var compositionId: String
    var stageId: String
    var layout: LayoutConfiguration
    /// The output canvas and main rendition (the channel destination's encoder configuration,
    /// else the first given, else IVS's defaults 1280×720, 30 fps, 2.5 Mbps).
    var video: VideoEncoding
    var channel: ChannelTarget?
    var recording: RecordingTarget?

    struct VideoEncoding: Sendable, Equatable {
        var width: Int
        var height: Int
        var framerate: Double
        var bitrate: Int
    }

    /// Destination index in the request's `destinations` list (GetComposition reports per index).
    struct ChannelTarget: Sendable, Equatable {
        var destinationIndex: Int
        var channelId: String
        /// "LOW" (LL-HLS) or "NORMAL" (classic HLS).
        var latencyMode: String
    }

    struct RecordingTarget: Sendable, Equatable {
        var destinationIndex: Int
        /// `<data dir>/s3/<bucketName>/<recordingPrefix>`, the prefix being IVS's
        /// `<stageId>/<compositionId>/<destinationId>/composite`; the recorder creates what is
        /// missing and writes IVS's layout below it (`events/`, `media/hls/`, thumbnails).
        var directory: URL
        var targetSegmentDurationSeconds: Int
        /// Seconds between JPEG thumbnails; nil: no thumbnails.
        var thumbnailIntervalSeconds: Int?
        /// With thumbnails: "SEQUENTIAL" (`media/thumbnails/<w>x<h>/`) and/or "LATEST"
        /// (`media/latest_thumbnail/<w>x<h>/thumb.jpg`), as IVS lays them out under the prefix.
        var thumbnailStorage: [String] = []
    }
}
