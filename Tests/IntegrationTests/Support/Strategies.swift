import StageKit

/// The IVS guide's moderated stage: guests never subscribe to moderators, moderators
/// subscribe to everyone and never publish. `overrides` lets a test change one answer and refresh.
@MainActor
final class ModeratedStrategy: StageStrategy {
    let streams: [LocalStageStream]
    var publish = true
    var overrides: [String: SubscribeType] = [:]

    init(streams: [LocalStageStream]) { self.streams = streams }

    static func cameraAndMic() -> [LocalStageStream] {
        [LocalStageStream(device: .init(deviceId: "camera", kind: .video)), LocalStageStream(device: .init(deviceId: "mic", kind: .audio))]
    }

    func stage(_ stage: Stage, shouldSubscribeToParticipant participant: ParticipantInfo) -> SubscribeType {
        if let override = overrides[participant.userId] { return override }
        return participant.attributes["role"] == "moderator" ? .none : .audioVideo
    }

    func stage(_ stage: Stage, shouldPublishParticipant participant: ParticipantInfo) -> Bool {
        publish && participant.attributes["role"] != "moderator"
    }

    func stage(_ stage: Stage, streamsToPublishForParticipant participant: ParticipantInfo) -> [LocalStageStream] { streams }
}
