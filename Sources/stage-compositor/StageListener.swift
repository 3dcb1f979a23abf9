import Foundation
import StageKit
import StageMedia

/// The compositor's strategy and renderer: subscribes to every publisher's audio and video,
/// publishes nothing (its token only allows subscribing, so nobody is told it is there), and
/// routes decoded pictures to `StageInputs` and decoded sound to the mixer.
@MainActor
final class StageListener: StageStrategy, StageRenderer {
    let inputs: StageInputs
    let onAudio: @Sendable (String, AudioFrame) -> Void
    var onDisconnect: ((StageError?) -> Void)?
    var onPublisherLeft: ((String) -> Void)?

    init(inputs: StageInputs, onAudio: @escaping @Sendable (String, AudioFrame) -> Void) {
        self.inputs = inputs
        self.onAudio = onAudio
    }

    func stage(_ stage: Stage, shouldSubscribeToParticipant participant: ParticipantInfo) -> SubscribeType { .audioVideo }
    func stage(_ stage: Stage, shouldPublishParticipant participant: ParticipantInfo) -> Bool { false }
    func stage(_ stage: Stage, streamsToPublishForParticipant participant: ParticipantInfo) -> [LocalStageStream] { [] }

    func stage(_ stage: Stage, participantDidJoin participant: ParticipantInfo) {}

    func stage(_ stage: Stage, participantDidLeave participant: ParticipantInfo) {
        inputs.publisherRemoved(participant.participantId)
        onPublisherLeft?(participant.participantId)
    }

    func stage(_ stage: Stage, participant: ParticipantInfo, didChange publishState: ParticipantPublishState) {
        if publishState == .notPublished && !participant.isLocal { inputs.publisherRemoved(participant.participantId) }
    }

    func stage(_ stage: Stage, participant: ParticipantInfo, didChange subscribeState: ParticipantSubscribeState) {}

    func stage(_ stage: Stage, participant: ParticipantInfo, didAdd streams: [StageStream]) {
        guard !participant.isLocal else { return }
        inputs.publisherAdded(participant)
        let id = participant.participantId
        for stream in streams {
            switch stream.kind {
            case .video:
                inputs.setVideo(id, present: true, muted: stream.isMuted)
                let inputs = self.inputs
                (stream.device as? ImageDevice)?.setOnFrameCallback { frame in
                    inputs.deliver(frame, from: id, atMicros: MediaClock.nowMicros())
                }
            case .audio:
                let onAudio = self.onAudio
                (stream.device as? AudioDevice)?.setOnAudioCallback { frame in onAudio(id, frame) }
            }
        }
    }

    func stage(_ stage: Stage, participant: ParticipantInfo, didRemove streams: [StageStream]) {
        for stream in streams {
            (stream.device as? ImageDevice)?.setOnFrameCallback(nil)
            (stream.device as? AudioDevice)?.setOnAudioCallback(nil)
            if stream.kind == .video { inputs.setVideo(participant.participantId, present: false, muted: false) }
        }
    }

    func stage(_ stage: Stage, participant: ParticipantInfo, didChangeMutedStreams streams: [StageStream]) {
        for stream in streams where stream.kind == .video {
            inputs.setVideo(participant.participantId, present: true, muted: stream.isMuted)
        }
    }

    func stage(_ stage: Stage, didChange connectionState: StageConnectionState, withError error: StageError?) {
        if connectionState == .disconnected && !stage.isReconnecting { onDisconnect?(error) }
    }
}
