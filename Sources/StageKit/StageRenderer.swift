/// What happened on the stage (IVS `IVSStageRenderer`). Every callback arrives on the main
/// actor, in the order the events happened; each has an empty default implementation.
///
/// Only participants that publish are announced (`participantDidJoin`); a participant that
/// stops publishing or leaves gets `participantDidLeave`. The local participant is announced
/// once joined, with `isLocal` set.
@MainActor
public protocol StageRenderer: AnyObject {
    func stage(_ stage: Stage, participantDidJoin participant: ParticipantInfo)
    func stage(_ stage: Stage, participantDidLeave participant: ParticipantInfo)
    func stage(_ stage: Stage, participant: ParticipantInfo, didChange publishState: ParticipantPublishState)
    func stage(_ stage: Stage, participant: ParticipantInfo, didChange subscribeState: ParticipantSubscribeState)
    func stage(_ stage: Stage, participant: ParticipantInfo, didAdd streams: [StageStream])
    func stage(_ stage: Stage, participant: ParticipantInfo, didRemove streams: [StageStream])
    func stage(_ stage: Stage, participant: ParticipantInfo, didChangeMutedStreams streams: [StageStream])
    func stage(_ stage: Stage, didChange connectionState: StageConnectionState, withError error: StageError?)
}

extension StageRenderer {
    public func stage(_ stage: Stage, participantDidJoin participant: ParticipantInfo) {}
    public func stage(_ stage: Stage, participantDidLeave participant: ParticipantInfo) {}
    public func stage(_ stage: Stage, participant: ParticipantInfo, didChange publishState: ParticipantPublishState) {}
    public func stage(_ stage: Stage, participant: ParticipantInfo, didChange subscribeState: ParticipantSubscribeState) {}
    public func stage(_ stage: Stage, participant: ParticipantInfo, didAdd streams: [StageStream]) {}
    public func stage(_ stage: Stage, participant: ParticipantInfo, didRemove streams: [StageStream]) {}
    public func stage(_ stage: Stage, participant: ParticipantInfo, didChangeMutedStreams streams: [StageStream]) {}
    public func stage(_ stage: Stage, didChange connectionState: StageConnectionState, withError error: StageError?) {}
}

/// Receives errors of requests the SDK made on the app's behalf (publish or subscribe refused).
@MainActor
public protocol StageErrorDelegate: AnyObject {
    func stage(_ stage: Stage, didEncounterError error: StageError)
}
