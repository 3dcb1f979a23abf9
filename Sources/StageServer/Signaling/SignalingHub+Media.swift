import StageProtocol

/// Publishing that follows real media: a participant is announced when its publish peer
/// connection carries media, and removed when that connection ends.
extension SignalingHub {
    /// The publish peer connection of `participant` connected. A participant without a
    /// signaling socket (WHIP) joins the stage here, as a member nobody can message.
    func mediaStarted(stageId: String, participant: ParticipantDescriptor, streams: [StreamDescriptor], mediaConnectionId: UInt64) {
        if rooms[stageId]?.members[participant.participantId] == nil {
            join(stageId: stageId, peer: SignalingPeer(connectionId: mediaConnectionId, participant: participant, client: nil, outbox: nil))
        }
        try? publish(stageId: stageId, participantId: participant.participantId, requestId: nil, streams: streams)
    }

    /// The publish peer connection ended: unpublish, and a socket-less participant leaves.
    func mediaStopped(stageId: String, participantId: String, mediaConnectionId: UInt64) {
        guard let member = rooms[stageId]?.members[participantId] else { return }
        if member.peer.connectionId == mediaConnectionId {
            leave(stageId: stageId, participantId: participantId, connectionId: mediaConnectionId)
        } else {
            try? unpublish(stageId: stageId, participantId: participantId, requestId: nil)
        }
    }
}
