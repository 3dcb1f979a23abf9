/// What the app wants from the stage (IVS `IVSStageStrategy`). The SDK asks it on join, when
/// a participant starts publishing, and on every `refreshStrategy()`; it applies only what changed.
/// Called on the main actor.
@MainActor
public protocol StageStrategy: AnyObject {
    /// What to receive from a remote participant. The SDK waits for it to publish before subscribing.
    func stage(_ stage: Stage, shouldSubscribeToParticipant participant: ParticipantInfo) -> SubscribeType
    /// Whether the local participant publishes. Asked only when its token grants PUBLISH.
    func stage(_ stage: Stage, shouldPublishParticipant participant: ParticipantInfo) -> Bool
    /// Which local streams to publish.
    func stage(_ stage: Stage, streamsToPublishForParticipant participant: ParticipantInfo) -> [LocalStageStream]
}
