import Foundation
import StageProtocol

/// Publish, mute and subscribe requests of a joined participant.
extension SignalingHub {
    typealias Refusal = ServerMessage.SignalError

    /// Starts publishing `streams`, or replaces the published set.
    func publish(stageId: String, participantId: String, requestId: String?, streams: [StreamDescriptor]) throws(Refusal) {
        let (sessionId, member) = try joinedMember(stageId, participantId, requestId)
        guard member.peer.participant.capabilities.allowPublish else {
            store.recordEvent(sessionId: sessionId, participantId: participantId, name: "PUBLISH_ERROR",
                              errorCode: "INSUFFICIENT_CAPABILITIES")
            throw Refusal(code: .insufficientCapabilities, message: "publish: the token does not grant PUBLISH", requestId: requestId)
        }
        try StreamRules.check(streams, requestId: requestId)
        let wasPublishing = member.published != nil
        let publishers = rooms[stageId]?.members.values.filter { $0.published != nil }.count ?? 0
        guard wasPublishing || publishers < maxPublishersPerStage else {
            store.recordEvent(sessionId: sessionId, participantId: participantId, name: "PUBLISH_ERROR", errorCode: "QUOTA_EXCEEDED")
            throw Refusal(code: .stageAtCapacity,
                          message: "publish: the stage has \(publishers) publishers, its maximum", requestId: requestId)
        }
        rooms[stageId]?.members[participantId]?.published = streams
        reply(member.peer, .publishState(.init(requestId: requestId, state: .published, streams: streams)))
        let others = rooms[stageId]?.others(than: participantId) ?? []
        if wasPublishing {
            broadcast(.streamsChanged(.init(participantId: participantId, streams: streams)), to: others)
        } else {
            broadcast(.participantJoined(.init(participant: member.peer.participant, streams: streams)), to: others)
            store.recordEvent(sessionId: sessionId, participantId: participantId, name: "PUBLISH_STARTED")
        }
        refreshGauges()
    }

    func unpublish(stageId: String, participantId: String, requestId: String?) throws(Refusal) {
        let (sessionId, member) = try joinedMember(stageId, participantId, requestId)
        guard member.published != nil else {
            reply(member.peer, .publishState(.init(requestId: requestId, state: .notPublished, streams: [])))
            return
        }
        rooms[stageId]?.members[participantId]?.published = nil
        dropSubscriptions(to: participantId, stageId: stageId)
        reply(member.peer, .publishState(.init(requestId: requestId, state: .notPublished, streams: [])))
        broadcast(.participantLeft(.init(participantId: participantId, reason: .unpublished)),
                  to: rooms[stageId]?.others(than: participantId) ?? [])
        store.recordEvent(sessionId: sessionId, participantId: participantId, name: "PUBLISH_STOPPED")
        refreshGauges()
    }

    /// Mutes or unmutes one published stream; the sender gets its new publish state, the others `muteChanged`.
    func mute(stageId: String, participantId: String, streamId: String, muted: Bool) throws(Refusal) {
        let (_, member) = try joinedMember(stageId, participantId, nil)
        guard var streams = member.published else {
            throw Refusal(code: .invalidField, message: "mute: not publishing; publish the stream with its muted flag instead")
        }
        guard let index = streams.firstIndex(where: { $0.streamId == streamId }) else {
            throw Refusal(code: .invalidField, message: "mute.streamId: '\(streamId)' is not one of the published streams")
        }
        guard streams[index].muted != muted else { return }
        streams[index].muted = muted
        rooms[stageId]?.members[participantId]?.published = streams
        reply(member.peer, .publishState(.init(requestId: nil, state: .published, streams: streams)))
        broadcast(.muteChanged(.init(participantId: participantId, streams: [streams[index]])),
                  to: rooms[stageId]?.others(than: participantId) ?? [])
    }

    /// Subscribes to a publisher's streams of the given type; `.none` unsubscribes.
    func subscribe(stageId: String, participantId: String, requestId: String, publisherId: String,
                   type: SubscribeType) throws(Refusal) {
        let (sessionId, member) = try joinedMember(stageId, participantId, requestId)
        if type != .none, !member.peer.participant.capabilities.allowSubscribe {
            store.recordEvent(sessionId: sessionId, participantId: participantId, name: "SUBSCRIBE_ERROR",
                              remote: publisherId, errorCode: "INSUFFICIENT_CAPABILITIES")
            throw Refusal(code: .insufficientCapabilities, message: "subscribe: the token does not grant SUBSCRIBE", requestId: requestId)
        }
        guard publisherId != participantId else {
            throw Refusal(code: .invalidField, message: "subscribe.participantId: a participant cannot subscribe to itself", requestId: requestId)
        }
        let previous = member.subscriptions[publisherId]
        if type == .none {
            rooms[stageId]?.members[participantId]?.subscriptions[publisherId] = nil
            reply(member.peer, .subscribeState(.init(requestId: requestId, participantId: publisherId, subscribeType: .none,
                                                     state: .notSubscribed, streams: [])))
            if previous != nil {
                store.recordEvent(sessionId: sessionId, participantId: participantId, name: "SUBSCRIBE_STOPPED", remote: publisherId)
            }
            return
        }
        guard let streams = rooms[stageId]?.members[publisherId]?.published else {
            store.recordEvent(sessionId: sessionId, participantId: participantId, name: "SUBSCRIBE_ERROR",
                              remote: publisherId, errorCode: "PUBLISHER_NOT_FOUND")
            throw Refusal(code: .publisherNotFound, message: "subscribe.participantId: \(publisherId) is not publishing", requestId: requestId)
        }
        rooms[stageId]?.members[participantId]?.subscriptions[publisherId] = type
        reply(member.peer, .subscribeState(.init(requestId: requestId, participantId: publisherId, subscribeType: type,
                                                 state: .subscribed, streams: streams.filter { type.includes($0.kind) })))
        if previous == nil {
            store.recordEvent(sessionId: sessionId, participantId: participantId, name: "SUBSCRIBE_STARTED", remote: publisherId)
        }
    }

    /// The session id and a copy of the member. Changes go through `rooms[…]?.members[…]`
    /// in place: copying the room would copy its member table on every request.
    private func joinedMember(_ stageId: String, _ participantId: String,
                              _ requestId: String?) throws(Refusal) -> (sessionId: String, member: StageRoom.Member) {
        guard let sessionId = rooms[stageId]?.sessionId, let member = rooms[stageId]?.members[participantId] else {
            throw Refusal(code: .notJoined, message: "the session is no longer joined", requestId: requestId)
        }
        return (sessionId, member)
    }
}

/// Rules for the stream list of a publish request.
enum StreamRules {
    static let maxStreams = 8

    static func check(_ streams: [StreamDescriptor], requestId: String?) throws(ServerMessage.SignalError) {
        guard (1...maxStreams).contains(streams.count) else {
            throw .init(code: .invalidField, message: "publish.streams: 1–\(maxStreams) streams, got \(streams.count)", requestId: requestId)
        }
        var seen = Set<String>()
        for stream in streams {
            guard (1...64).contains(stream.streamId.count) else {
                throw .init(code: .invalidField, message: "publish.streams.streamId: 1–64 characters", requestId: requestId)
            }
            guard seen.insert(stream.streamId).inserted else {
                throw .init(code: .invalidField, message: "publish.streams.streamId: '\(stream.streamId)' appears twice", requestId: requestId)
            }
        }
    }
}
