import Foundation
import StageProtocol

/// The `ivs` stream operations: a channel is LIVE while an ACTIVE composition feeds it.
extension ControlPlane {
    /// A channel's live stream, from the composition feeding it.
    struct LiveStream: Sendable {
        var seq: Int64
        var channelId: String
        var streamId: String
        var startTime: Date
        /// HEALTHY (the channel destination is ACTIVE), STARVING (RECONNECTING) or UNKNOWN (not reported yet).
        var health: String
    }

    /// The stream of `composition` if it is live: the composition ACTIVE, its channel destination
    /// not ended.
    static func liveStream(of composition: CompositionRecord) -> LiveStream? {
        guard composition.state == .active, let channelId = composition.channelId, let index = composition.channelDestinationIndex else {
            return nil
        }
        let destination = composition.destinations[index]
        let health: String
        switch destination.state {
        case .active: health = "HEALTHY"
        case .reconnecting: health = "STARVING"
        case .starting: health = "UNKNOWN"
        case .stopping, .stopped, .failed: return nil
        }
        return LiveStream(seq: composition.seq, channelId: channelId, streamId: composition.streamId,
                          startTime: destination.startTime ?? composition.startTime, health: health)
    }

    func getStream(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["channelArn"])
        let channel = try await existingChannel(fields, "channelArn")
        guard let feeding = try await store.compositionFeeding(channelId: channel.id), let live = Self.liveStream(of: feeding) else {
            throw APIError(kind: .channelNotBroadcasting, message: "channelArn: channel \(names.channel(channel.id)) is not broadcasting")
        }
        return IVSAPI.StreamResponse(stream: .init(
            channelArn: names.channel(live.channelId), streamId: live.streamId, playbackUrl: endpoints.playbackURL(channelId: live.channelId),
            startTime: live.startTime, state: "LIVE", health: live.health, viewerCount: await viewerCount(live.channelId)))
    }

    func listStreams(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["filterBy", "nextToken", "maxResults"])
        let health = try fields.object("filterBy", allowed: ["health"])?.enumeration("health", allowed: ["HEALTHY", "STARVING", "UNKNOWN"])
        let limit = try maxResults(fields, default: 100)
        let after = try pageStart(fields)
        let live = try await store.compositions(in: [.active]).compactMap(Self.liveStream(of:))
            .filter { $0.seq > after && (health == nil || $0.health == health) }
        var streams: [IVSAPI.StreamSummary] = []
        for stream in live.prefix(limit) {
            streams.append(.init(channelArn: names.channel(stream.channelId), streamId: stream.streamId, state: "LIVE", health: stream.health,
                                 viewerCount: await viewerCount(stream.channelId), startTime: stream.startTime))
        }
        return IVSAPI.ListStreamsResponse(streams: streams, nextToken: live.count > limit ? PageToken.encode(live[limit - 1].seq) : nil)
    }
}
