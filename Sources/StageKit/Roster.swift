import StageProtocol

/// The remote participants that publish and their streams, as the server announced them, in
/// the order they appeared. Each change returns what the renderers are told; `Stage` tells them.
@MainActor
struct Roster {
    /// This client's participant id: the server's announcement of it is not a remote one.
    let localParticipantId: String
    /// Participant ids in the order they appeared.
    private(set) var order: [String] = []
    private var byId: [String: RemoteParticipant] = [:]

    init(localParticipantId: String) {
        self.localParticipantId = localParticipantId
    }

    subscript(participantId: String) -> RemoteParticipant? { byId[participantId] }

    /// The participants in the order they appeared.
    var participants: [RemoteParticipant] { order.compactMap { byId[$0] } }

    var participantIds: Set<String> { Set(byId.keys) }

    /// Adds a publisher, marked published; nil when it is known already or is this client.
    mutating func add(_ publisher: PublisherDescriptor) -> ParticipantInfo? {
        let id = publisher.participant.participantId
        guard byId[id] == nil, id != localParticipantId else { return nil }
        let info = ParticipantInfo(publisher.participant, isLocal: false, publishState: .published)
        byId[id] = RemoteParticipant(info: info, streams: publisher.streams)
        order.append(id)
        return info
    }

    /// Removes a participant, marked not published; nil when it is unknown.
    mutating func remove(_ participantId: String) -> ParticipantInfo? {
        guard var remote = byId.removeValue(forKey: participantId) else { return nil }
        order.removeAll { $0 == participantId }
        remote.info.publishState = .notPublished
        return remote.info
    }

    mutating func removeAll() {
        byId = [:]
        order = []
    }

    /// The participant's new subscribe state; nil when it is unknown or the state is unchanged.
    mutating func setSubscribeState(_ state: ParticipantSubscribeState, of participantId: String) -> ParticipantInfo? {
        guard let current = byId[participantId]?.info.subscribeState, current != state else { return nil }
        byId[participantId]?.info.subscribeState = state
        return byId[participantId]?.info
    }

    /// Replaces the streams a participant publishes (what it receives is unchanged); nil when it is unknown.
    mutating func setStreams(_ streams: [StreamDescriptor], of participantId: String) -> RemoteParticipant? {
        byId[participantId]?.streams = streams
        return byId[participantId]
    }

    /// Applies the mute flags of `streams`; returns the received ones among them, nil when none.
    mutating func setMuted(_ streams: [StreamDescriptor], of participantId: String) -> (ParticipantInfo, [StageStream])? {
        guard var remote = byId[participantId] else { return nil }
        var changed: [StageStream] = []
        for descriptor in streams {
            if let index = remote.streams.firstIndex(where: { $0.streamId == descriptor.streamId }) { remote.streams[index].muted = descriptor.muted }
            if remote.received.contains(descriptor.streamId) { changed.append(remote.stream(for: descriptor)) }
        }
        byId[participantId] = remote
        return changed.isEmpty ? nil : (remote.info, changed)
    }

    /// What changed when the received streams of a participant become `streams`.
    struct ReceivedChange {
        var participant: ParticipantInfo
        var removed: [StageStream]
        var added: [StageStream]
    }

    /// Makes `streams` the ones received from a participant; nil when it is unknown.
    mutating func receive(_ streams: [StreamDescriptor], from participantId: String) -> ReceivedChange? {
        guard var remote = byId[participantId] else { return nil }
        let newIds = streams.map(\.streamId)
        let removed = remote.received.filter { !newIds.contains($0) }.compactMap { remote.stageStreams[$0] }
        let added = streams.filter { !remote.received.contains($0.streamId) }.map { remote.stream(for: $0) }
        remote.received = newIds
        byId[participantId] = remote
        return ReceivedChange(participant: remote.info, removed: removed, added: added)
    }

    /// The stream objects of the participant's published streams of the kinds `type` includes.
    mutating func stageStreams(of participantId: String, for type: SubscribeType) -> [StageStream] {
        guard var remote = byId[participantId] else { return [] }
        let streams = remote.streams.filter { type.includes($0.kind) }.map { remote.stream(for: $0) }
        byId[participantId] = remote
        return streams
    }
}

/// A remote participant that publishes, and what this client receives from it.
struct RemoteParticipant {
    var info: ParticipantInfo
    var streams: [StreamDescriptor]
    /// One object per stream id, so renderers see the same instance in add, mute and remove.
    var stageStreams: [String: StageStream] = [:]
    /// Stream ids currently received.
    var received: [String] = []

    @MainActor
    mutating func stream(for descriptor: StreamDescriptor) -> StageStream {
        if let existing = stageStreams[descriptor.streamId] {
            existing.isMuted = descriptor.muted
            return existing
        }
        let created = StageStream(streamId: descriptor.streamId, kind: descriptor.kind, isMuted: descriptor.muted)
        stageStreams[descriptor.streamId] = created
        return created
    }
}
