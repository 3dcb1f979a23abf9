import Foundation
import StageProtocol

/// Owns the live rooms of every stage and applies the IVS rules to them:
/// - only publishing participants are announced (`participantJoined`/`participantLeft`);
///   a subscribe-only participant stays invisible to the others;
/// - attributes travel with every announcement;
/// - capabilities are enforced here, so a refused request changes nothing.
/// Messages are encoded once per change and queued on each peer; persistence is enqueued
/// on the store in the same order.
actor SignalingHub {
    let store: Store
    var rooms: [String: StageRoom] = [:]

    /// Publishers a stage may have at once (IVS: 12); one more is refused with `stageAtCapacity`.
    let maxPublishersPerStage: Int

    /// How long a session outlives its last participant (`ServerConfiguration.sessionLingerSeconds`).
    let sessionLinger: Duration

    init(store: Store, maxPublishersPerStage: Int = 12, sessionLinger: Duration = .seconds(30)) {
        self.store = store
        self.maxPublishersPerStage = maxPublishersPerStage
        self.sessionLinger = sessionLinger
    }

    func activeSessionId(stageId: String) -> String? { rooms[stageId]?.sessionId }

    func isConnected(stageId: String, participantId: String) -> Bool { rooms[stageId]?.members[participantId] != nil }

    func encode(_ message: ServerMessage) -> String { SignalCodec().encode(message) }

    func broadcast(_ message: ServerMessage, to peers: [SignalingPeer]) {
        guard !peers.isEmpty else { return }
        let text = encode(message)
        for peer in peers { peer.send(text) }
    }

    /// A message for one peer: its writer task encodes it, so the hub does not.
    func reply(_ peer: SignalingPeer, _ message: ServerMessage) { peer.send(message) }

    // MARK: Join and leave

    /// Adds a verified participant. A participant already connected with the same id is
    /// replaced: that is how a client reconnects with its token.
    /// The `joined` answer is queued on the peer here, so no broadcast can overtake it.
    func join(stageId: String, peer: SignalingPeer) {
        let now = Date()
        if let previous = rooms[stageId]?.members[peer.participantId] {
            previous.peer.close(with: encode(.disconnect(.init(reason: .replacedBySameToken,
                                                              message: "the same participant token joined again"))))
            remove(stageId: stageId, participantId: peer.participantId, connectionId: previous.peer.connectionId, reason: .left,
                   rejoining: true)
        }
        rooms[stageId]?.emptiedAt = nil
        if rooms[stageId] == nil {
            let room = StageRoom(sessionId: Identifiers.sessionId())
            rooms[stageId] = room
            store.recordSessionStart(sessionId: room.sessionId, stageId: stageId, at: now)
            ServerMetrics.activeSessions.record(rooms.count)
        }
        rooms[stageId]!.members[peer.participantId] = StageRoom.Member(peer: peer)
        let room = rooms[stageId]!
        store.recordJoin(sessionId: room.sessionId, participant: ParticipantRecord(
            seq: 0, sessionId: room.sessionId, participantId: peer.participantId, userId: peer.participant.userId,
            attributes: peer.participant.attributes, connected: true, firstJoinTime: now, published: false,
            sdkVersion: peer.sessionFacts?.sdkVersion, osName: peer.sessionFacts?.osName, osVersion: peer.sessionFacts?.osVersion), at: now)
        refreshGauges()
        reply(peer, .joined(.init(sessionId: room.sessionId, participant: peer.participant,
                                  publishers: room.publishers.filter { $0.participant.participantId != peer.participantId },
                                  pingIntervalSeconds: SignalingLimits.pingIntervalSeconds)))
    }

    /// The socket of `connectionId` ended. Ignored when a newer connection already replaced it.
    func leave(stageId: String, participantId: String, connectionId: UInt64) {
        remove(stageId: stageId, participantId: participantId, connectionId: connectionId, reason: .left)
    }

    /// DisconnectParticipant: tells the client why, closes its socket, removes it.
    /// Ends media sessions when a participant is removed by force (kick, token expiry, stage
    /// deleted): set once by the media service. The participant id is nil for the whole stage.
    private(set) var endMedia: (@Sendable (_ stageId: String, _ participantId: String?, _ reason: String) async -> Bool)?

    func setEndMedia(_ end: @escaping @Sendable (_ stageId: String, _ participantId: String?, _ reason: String) async -> Bool) {
        endMedia = end
    }

    private func endMediaNow(_ stageId: String, _ participantId: String?, _ reason: String) {
        guard let endMedia else { return }
        Task { _ = await endMedia(stageId, participantId, reason) }
    }

    func disconnect(stageId: String, participantId: String, reason: String) -> Bool {
        guard let member = rooms[stageId]?.members[participantId] else { return false }
        endMediaNow(stageId, participantId, "disconnected by the operator")
        member.peer.close(with: encode(.disconnect(.init(reason: .disconnectedByOperator,
                                                          message: reason.isEmpty ? "disconnected by the stage operator" : reason))))
        remove(stageId: stageId, participantId: participantId, connectionId: member.peer.connectionId, reason: .disconnected)
        return true
    }

    /// Ends a session from the server side (token expired, protocol violation, shutdown).
    func expel(stageId: String, participantId: String, connectionId: UInt64, reason: DisconnectReason, message: String) {
        guard let member = rooms[stageId]?.members[participantId], member.peer.connectionId == connectionId else { return }
        if reason == .tokenExpired { endMediaNow(stageId, participantId, message) }
        member.peer.close(with: encode(.disconnect(.init(reason: reason, message: message))))
        remove(stageId: stageId, participantId: participantId, connectionId: connectionId, reason: .disconnected)
    }

    /// DeleteStage: everyone is told and disconnected; the session ends.
    func closeStage(stageId: String) {
        endMediaNow(stageId, nil, "the stage was deleted")
        guard let room = rooms[stageId] else { return }
        let text = encode(.disconnect(.init(reason: .stageDeleted, message: "the stage was deleted")))
        for member in room.members.values { member.peer.close(with: text) }
        for id in room.members.keys { store.recordLeave(sessionId: room.sessionId, participantId: id, at: Date()) }
        rooms[stageId] = nil
        store.recordSessionEnd(sessionId: room.sessionId, at: Date())
        refreshGauges()
    }

    /// Closes every connection (server shutdown).
    func closeAll() {
        for stageId in rooms.keys {
            guard let room = rooms[stageId] else { continue }
            let text = encode(.disconnect(.init(reason: .serverShutdown, message: "the server is shutting down")))
            for member in room.members.values { member.peer.close(with: text) }
        }
    }

    /// Removes a member; the session ends `sessionLinger` after the last one left, unless it
    /// is `rejoining` at once (its replacement is joining).
    private func remove(stageId: String, participantId: String, connectionId: UInt64, reason: LeaveReason, rejoining: Bool = false) {
        guard let sessionId = rooms[stageId]?.sessionId, let member = rooms[stageId]?.members[participantId],
              member.peer.connectionId == connectionId else { return }
        let now = Date()
        rooms[stageId]?.members[participantId] = nil
        if member.published != nil {
            broadcast(.participantLeft(.init(participantId: participantId, reason: reason)),
                      to: rooms[stageId]?.others(than: participantId) ?? [])
            dropSubscriptions(to: participantId, stageId: stageId)
        }
        store.recordLeave(sessionId: sessionId, participantId: participantId, at: now)
        if rooms[stageId]?.members.isEmpty == true, !rejoining {
            rooms[stageId]?.emptiedAt = now
            if sessionLinger <= .zero {
                endSessionIfStillEmpty(stageId: stageId, emptiedAt: now)
            } else {
                Task { [sessionLinger] in
                    try? await Task.sleep(for: sessionLinger)
                    self.endSessionIfStillEmpty(stageId: stageId, emptiedAt: now)
                }
            }
        }
        refreshGauges()
    }

    /// Ends the session the linger time after its last participant left, if nobody joined
    /// since (the room is still the one emptied at `emptiedAt`); its end time is then.
    private func endSessionIfStillEmpty(stageId: String, emptiedAt: Date) {
        guard let room = rooms[stageId], room.members.isEmpty, room.emptiedAt == emptiedAt else { return }
        rooms[stageId] = nil
        store.recordSessionEnd(sessionId: room.sessionId, at: emptiedAt)
        refreshGauges()
    }

    /// Everyone subscribed to `publisherId` stops being so (it stopped publishing or left).
    func dropSubscriptions(to publisherId: String, stageId: String) {
        guard let sessionId = rooms[stageId]?.sessionId, let ids = rooms[stageId]?.members.keys else { return }
        for id in Array(ids) where rooms[stageId]?.members[id]?.subscriptions.removeValue(forKey: publisherId) != nil {
            store.recordEvent(sessionId: sessionId, participantId: id, name: "SUBSCRIBE_STOPPED", remote: publisherId)
        }
    }

    func refreshGauges() {
        let members = rooms.values.flatMap(\.members.values)
        ServerMetrics.connectedParticipants.record(members.count)
        ServerMetrics.publishingParticipants.record(members.filter { $0.published != nil }.count)
        ServerMetrics.activeSessions.record(rooms.count)
    }
}
