public import Foundation

/// Channel shapes of the `ivs` (low-latency streaming) model, 2020-07-14: channels, their
/// stream keys and live streams. A channel here is fed by a server-side composition and
/// played as HLS from this server.
extension IVSAPI {
    public struct Channel: Codable, Sendable, Hashable {
        public var arn: String
        public var name: String?
        /// NORMAL | LOW
        public var latencyMode: String?
        /// BASIC | STANDARD | ADVANCED_SD | ADVANCED_HD
        public var type: String?
        public var recordingConfigurationArn: String?
        public var ingestEndpoint: String?
        public var playbackUrl: String?
        public var authorized: Bool?
        public var tags: [String: String]?
        public var insecureIngest: Bool?
        public var preset: String?
        public var playbackRestrictionPolicyArn: String?
        /// TS | FRAGMENTED_MP4
        public var containerFormat: String?
        public var adConfigurationArn: String?
        public init(arn: String, name: String?, latencyMode: String?, type: String?, recordingConfigurationArn: String?,
                    ingestEndpoint: String?, playbackUrl: String?, authorized: Bool?, tags: [String: String]?, insecureIngest: Bool?,
                    preset: String?, playbackRestrictionPolicyArn: String?, containerFormat: String?, adConfigurationArn: String?) {
            self.arn = arn
            self.name = name
            self.latencyMode = latencyMode
            self.type = type
            self.recordingConfigurationArn = recordingConfigurationArn
            self.ingestEndpoint = ingestEndpoint
            self.playbackUrl = playbackUrl
            self.authorized = authorized
            self.tags = tags
            self.insecureIngest = insecureIngest
            self.preset = preset
            self.playbackRestrictionPolicyArn = playbackRestrictionPolicyArn
            self.containerFormat = containerFormat
            self.adConfigurationArn = adConfigurationArn
        }
    }

    public struct ChannelSummary: Codable, Sendable, Hashable {
        public var arn: String
        public var name: String?
        public var latencyMode: String?
        public var authorized: Bool?
        public var recordingConfigurationArn: String?
        public var tags: [String: String]?
        public var insecureIngest: Bool?
        public var type: String?
        public var preset: String?
        public var playbackRestrictionPolicyArn: String?
        public var adConfigurationArn: String?
        public init(arn: String, name: String?, latencyMode: String?, authorized: Bool?, recordingConfigurationArn: String?,
                    tags: [String: String]?, insecureIngest: Bool?, type: String?, preset: String?,
                    playbackRestrictionPolicyArn: String?, adConfigurationArn: String?) {
            self.arn = arn
            self.name = name
            self.latencyMode = latencyMode
            self.authorized = authorized
            self.recordingConfigurationArn = recordingConfigurationArn
            self.tags = tags
            self.insecureIngest = insecureIngest
            self.type = type
            self.preset = preset
            self.playbackRestrictionPolicyArn = playbackRestrictionPolicyArn
            self.adConfigurationArn = adConfigurationArn
        }
    }

    public struct StreamKey: Codable, Sendable, Hashable {
        public var arn: String
        public var value: String?
        public var channelArn: String?
        public var tags: [String: String]?
        public init(arn: String, value: String?, channelArn: String?, tags: [String: String]?) {
            self.arn = arn
            self.value = value
            self.channelArn = channelArn
            self.tags = tags
        }
    }

    /// `Stream`: the live stream of a channel.
    public struct Stream: Codable, Sendable, Hashable {
        public var channelArn: String
        public var streamId: String
        public var playbackUrl: String?
        public var startTime: Date?
        /// LIVE | OFFLINE
        public var state: String
        /// HEALTHY | STARVING | UNKNOWN
        public var health: String
        public var viewerCount: Int?
        public init(channelArn: String, streamId: String, playbackUrl: String?, startTime: Date?, state: String, health: String,
                    viewerCount: Int?) {
            self.channelArn = channelArn
            self.streamId = streamId
            self.playbackUrl = playbackUrl
            self.startTime = startTime
            self.state = state
            self.health = health
            self.viewerCount = viewerCount
        }
    }

    public struct StreamSummary: Codable, Sendable, Hashable {
        public var channelArn: String
        public var streamId: String
        public var state: String
        public var health: String
        public var viewerCount: Int?
        public var startTime: Date?
        public init(channelArn: String, streamId: String, state: String, health: String, viewerCount: Int?, startTime: Date?) {
            self.channelArn = channelArn
            self.streamId = streamId
            self.state = state
            self.health = health
            self.viewerCount = viewerCount
            self.startTime = startTime
        }
    }

    // Operation outputs.
    public struct CreateChannelResponse: Codable, Sendable {
        public var channel: Channel
        public var streamKey: StreamKey
        public init(channel: Channel, streamKey: StreamKey) {
            self.channel = channel
            self.streamKey = streamKey
        }
    }
    public struct ChannelResponse: Codable, Sendable {
        public var channel: Channel
        public init(channel: Channel) { self.channel = channel }
    }
    public struct ListChannelsResponse: Codable, Sendable {
        public var channels: [ChannelSummary]
        public var nextToken: String?
        public init(channels: [ChannelSummary], nextToken: String? = nil) {
            self.channels = channels
            self.nextToken = nextToken
        }
    }
    public struct StreamResponse: Codable, Sendable {
        public var stream: Stream
        public init(stream: Stream) { self.stream = stream }
    }
    public struct ListStreamsResponse: Codable, Sendable {
        public var streams: [StreamSummary]
        public var nextToken: String?
        public init(streams: [StreamSummary], nextToken: String? = nil) {
            self.streams = streams
            self.nextToken = nextToken
        }
    }
    /// An answer with no body: HTTP 204 (the `ivs` DeleteChannel answer).
    public struct NoContent: Codable, Sendable { public init() {} }
}
