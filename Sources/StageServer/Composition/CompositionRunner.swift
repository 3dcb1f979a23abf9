import Foundation

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
    var layout: CompositionLayoutPlan
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

/// IVS's layout, as given (defaults applied): grid or pip.
enum CompositionLayoutPlan: Sendable, Equatable {
    case grid(Grid)
    case pip(PiP)

    struct Grid: Sendable, Equatable {
        var featuredParticipantAttribute: String?
        var participantOrderAttribute: String?
        var omitStoppedVideo: Bool = false
        /// AUTO | VIDEO | SQUARE | PORTRAIT
        var videoAspectRatio: String = "VIDEO"
        /// FILL | COVER | CONTAIN
        var videoFillMode: String?
        var gridGap: Int = 2
    }

    struct PiP: Sendable, Equatable {
        var featuredParticipantAttribute: String?
        var participantOrderAttribute: String?
        var omitStoppedVideo: Bool = false
        var pipParticipantAttribute: String?
        /// STATIC | DYNAMIC
        var pipBehavior: String = "STATIC"
        var pipOffset: Int = 0
        /// TOP_LEFT | TOP_RIGHT | BOTTOM_LEFT | BOTTOM_RIGHT
        var pipPosition: String = "BOTTOM_RIGHT"
        var pipWidth: Int?
        var pipHeight: Int?
        /// FILL | COVER | CONTAIN
        var videoFillMode: String = "COVER"
        var gridGap: Int = 0
    }
}
