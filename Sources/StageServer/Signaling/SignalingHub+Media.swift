import StageProtocol

/// Publishing that follows real media: a participant is announced when its publish peer
/// connection carries media, and removed when that connection ends.
extension SignalingHub {
    /// The publish peer connection of `participant` connected. A participant without a
    /// signaling socket (WHIP) joins the stage here, as a member nobody can message.
    func mediaStarted(stageId: String, participant: ParticipantDescriptor, streams: [StreamDescriptor], mediaConnectionId: UInt64) {
        if let member = rooms[stageId]?.members[participant.participantId] {
            // A signaling client that announced its streams (with their mute state) keeps them.
            if member.published != nil { return }
        } else {
            join(stageId: stageId, peer: SignalingPeer(connectionId: mediaConnectionId, participant: participant, client: nil, outbox: nil))
        }
        try? publish(stageId: stageId, participantId: participant.participantId, requestId: nil, streams: streams)
    }

    /// Dynacast: tells the publisher's signaling connection which simulcast layers of one of its
    /// streams subscribers use. A publisher without one (WHIP) keeps sending every layer.
    func publishLayers(stageId: String, participantId: String, streamId: String, rids: [String]) {
        rooms[stageId]?.members[participantId]?.peer.send(.publishLayers(.init(streamId: streamId, rids: rids)))
    }

    /// Tells a subscriber's signaling connection the server's estimate of its link for its
    /// subscription to `publisherId`.
    func downlinkEstimate(stageId: String, subscriberId: String, publisherId: String, bitsPerSecond: Int) {
        rooms[stageId]?.members[subscriberId]?.peer.send(.downlinkEstimate(.init(participantId: publisherId, bitsPerSecond: bitsPerSecond)))
    }

    /// The current publish peer connection ended (not one replaced by a newer one): unpublish,
    /// and a socket-less participant leaves.
    func mediaStopped(stageId: String, participantId: String, mediaConnectionId: UInt64) {
        guard let member = rooms[stageId]?.members[participantId] else { return }
        if !member.peer.hasSocket {
            leave(stageId: stageId, participantId: participantId, connectionId: member.peer.connectionId)
        } else {
            try? unpublish(stageId: stageId, participantId: participantId, requestId: nil)
        }
    }
}
