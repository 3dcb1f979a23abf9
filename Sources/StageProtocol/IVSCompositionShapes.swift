public import Foundation
public import StageLayout

/// Server-side composition shapes of the `ivs-realtime` model (2020-07-14): compositions,
/// their destinations (their layout is StageLayout's `LayoutConfiguration`). Member names and optionality follow botocore's model;
/// nil members are left out of the JSON.
extension IVSAPI {
    /// `DestinationConfiguration`: a channel or an s3 destination, as requested (defaults applied).
    public struct DestinationConfiguration: Codable, Sendable, Hashable {
        public var name: String?
        public var channel: ChannelDestinationConfiguration?
        public var s3: S3DestinationConfiguration?
        public init(name: String? = nil, channel: ChannelDestinationConfiguration? = nil, s3: S3DestinationConfiguration? = nil) {
            self.name = name
            self.channel = channel
            self.s3 = s3
        }
    }

    public struct ChannelDestinationConfiguration: Codable, Sendable, Hashable {
        public var channelArn: String
        public var encoderConfigurationArn: String?
        public init(channelArn: String, encoderConfigurationArn: String? = nil) {
            self.channelArn = channelArn
            self.encoderConfigurationArn = encoderConfigurationArn
        }
    }

    public struct S3DestinationConfiguration: Codable, Sendable, Hashable {
        public var storageConfigurationArn: String
        public var encoderConfigurationArns: [String]
        public var recordingConfiguration: CompositionRecordingConfiguration?
        public var thumbnailConfigurations: [CompositionThumbnailConfiguration]?
        public init(storageConfigurationArn: String, encoderConfigurationArns: [String],
                    recordingConfiguration: CompositionRecordingConfiguration? = nil,
                    thumbnailConfigurations: [CompositionThumbnailConfiguration]? = nil) {
            self.storageConfigurationArn = storageConfigurationArn
            self.encoderConfigurationArns = encoderConfigurationArns
            self.recordingConfiguration = recordingConfiguration
            self.thumbnailConfigurations = thumbnailConfigurations
        }
    }

    /// `RecordingConfiguration` of an s3 destination (format HLS).
    public struct CompositionRecordingConfiguration: Codable, Sendable, Hashable {
        public var format: String?
        public var hlsConfiguration: CompositionRecordingHlsConfiguration?
        public init(format: String? = nil, hlsConfiguration: CompositionRecordingHlsConfiguration? = nil) {
            self.format = format
            self.hlsConfiguration = hlsConfiguration
        }
    }

    public struct CompositionRecordingHlsConfiguration: Codable, Sendable, Hashable {
        public var targetSegmentDurationSeconds: Int?
        public init(targetSegmentDurationSeconds: Int? = nil) { self.targetSegmentDurationSeconds = targetSegmentDurationSeconds }
    }

    public struct CompositionThumbnailConfiguration: Codable, Sendable, Hashable {
        public var targetIntervalSeconds: Int?
        /// SEQUENTIAL and/or LATEST.
        public var storage: [String]?
        public init(targetIntervalSeconds: Int? = nil, storage: [String]? = nil) {
            self.targetIntervalSeconds = targetIntervalSeconds
            self.storage = storage
        }
    }

    public struct DestinationDetail: Codable, Sendable, Hashable {
        public var s3: S3Detail?
        public init(s3: S3Detail?) { self.s3 = s3 }
    }

    public struct S3Detail: Codable, Sendable, Hashable {
        public var recordingPrefix: String
        public init(recordingPrefix: String) { self.recordingPrefix = recordingPrefix }
    }

    /// `Destination`: one output of a composition and its state.
    public struct Destination: Codable, Sendable, Hashable {
        public var id: String
        /// STARTING | ACTIVE | STOPPING | RECONNECTING | FAILED | STOPPED
        public var state: String
        public var startTime: Date?
        public var endTime: Date?
        public var configuration: DestinationConfiguration
        public var detail: DestinationDetail?
        public init(id: String, state: String, startTime: Date?, endTime: Date?, configuration: DestinationConfiguration,
                    detail: DestinationDetail?) {
            self.id = id
            self.state = state
            self.startTime = startTime
            self.endTime = endTime
            self.configuration = configuration
            self.detail = detail
        }
    }

    public struct DestinationSummary: Codable, Sendable, Hashable {
        public var id: String
        public var state: String
        public var startTime: Date?
        public var endTime: Date?
        public init(id: String, state: String, startTime: Date?, endTime: Date?) {
            self.id = id
            self.state = state
            self.startTime = startTime
            self.endTime = endTime
        }
    }

    public struct Composition: Codable, Sendable, Hashable {
        public var arn: String
        public var stageArn: String
        /// STARTING | ACTIVE | STOPPING | FAILED | STOPPED
        public var state: String
        public var layout: LayoutConfiguration
        public var destinations: [Destination]
        public var tags: [String: String]?
        public var startTime: Date?
        public var endTime: Date?
        public init(arn: String, stageArn: String, state: String, layout: LayoutConfiguration, destinations: [Destination],
                    tags: [String: String]?, startTime: Date?, endTime: Date?) {
            self.arn = arn
            self.stageArn = stageArn
            self.state = state
            self.layout = layout
            self.destinations = destinations
            self.tags = tags
            self.startTime = startTime
            self.endTime = endTime
        }
    }

    public struct CompositionSummary: Codable, Sendable, Hashable {
        public var arn: String
        public var stageArn: String
        public var destinations: [DestinationSummary]
        public var state: String
        public var tags: [String: String]?
        public var startTime: Date?
        public var endTime: Date?
        public init(arn: String, stageArn: String, destinations: [DestinationSummary], state: String, tags: [String: String]?,
                    startTime: Date?, endTime: Date?) {
            self.arn = arn
            self.stageArn = stageArn
            self.destinations = destinations
            self.state = state
            self.tags = tags
            self.startTime = startTime
            self.endTime = endTime
        }
    }

    // Operation outputs.
    /// StartComposition and GetComposition.
    public struct CompositionResponse: Codable, Sendable {
        public var composition: Composition
        public init(composition: Composition) { self.composition = composition }
    }
    public struct ListCompositionsResponse: Codable, Sendable {
        public var compositions: [CompositionSummary]
        public var nextToken: String?
        public init(compositions: [CompositionSummary], nextToken: String? = nil) {
            self.compositions = compositions
            self.nextToken = nextToken
        }
    }
}
