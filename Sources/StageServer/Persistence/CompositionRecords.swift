import Foundation
import StageLayout
import StageProtocol

/// Rows of the composition, channel, encoder- and storage-configuration tables.
struct EncoderConfigurationRecord: Sendable, Hashable {
    var seq: Int64
    var id: String
    var name: String
    var width: Int
    var height: Int
    var framerate: Double
    var bitrate: Int
    var tags: [String: String]
}

struct StorageConfigurationRecord: Sendable, Hashable {
    var seq: Int64
    var id: String
    var name: String
    var bucketName: String
    var tags: [String: String]
}

/// An `ivs` channel and its one stream key.
struct ChannelRecord: Sendable, Hashable {
    var seq: Int64
    var id: String
    var name: String
    var latencyMode: String
    var type: String
    var preset: String
    var insecureIngest: Bool
    var containerFormat: String
    var tags: [String: String]
    var streamKeyId: String
    var streamKeyValue: String
}

/// One destination of a composition, kept as JSON in its composition's row.
struct DestinationRecord: Codable, Sendable, Hashable {
    var id: String
    var state: DestinationState
    var startTime: Date?
    var endTime: Date?
    /// As requested, defaults applied; GetComposition echoes it.
    var configuration: IVSAPI.DestinationConfiguration
    /// s3 destinations: `<stageId>/<compositionId>/<destinationId>/composite`.
    var recordingPrefix: String?
}

struct CompositionRecord: Sendable, Hashable {
    var seq: Int64
    var id: String
    var stageId: String
    var state: CompositionState
    /// Why the composition last changed state (runner or board), for logs and operators.
    var stateReason: String?
    var layout: LayoutConfiguration
    var destinations: [DestinationRecord]
    var tags: [String: String]
    var startTime: Date
    var endTime: Date?
    var idempotencyToken: String?
    /// Canonical JSON of the validated request: a reused idempotency token must carry the same request.
    var requestDigest: String
    /// The channel the composition feeds, if any.
    var channelId: String?
    /// The `ivs` stream id of the channel's live stream while this composition feeds it.
    var streamId: String
    var encoderConfigurationIds: [String]
    var storageConfigurationIds: [String]

    /// Index of the channel destination, if any.
    var channelDestinationIndex: Int? { destinations.firstIndex { $0.configuration.channel != nil } }
}
