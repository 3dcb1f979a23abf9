import StageKit
import StageDevices

/// `--speaker`: plays the decoded audio of every stream the strategy subscribes to, mixed,
/// through PulseAudio (`PulseSpeaker`). Blocks arrive as the SDK plays them out (every 20 ms
/// per stream) and are mixed at the sound server's pace.
@MainActor
final class SpeakerOutput: StageRenderer {
    let speaker: PulseSpeaker
    private var sources: [ObjectIdentifier: String] = [:]

    init(device: String?) throws {
        speaker = try PulseSpeaker(device: device)
    }

    func stage(_ stage: Stage, participant: ParticipantInfo, didAdd streams: [StageStream]) {
        guard !participant.isLocal else { return }
        for stream in streams where stream.kind == .audio {
            let source = "\(participant.participantId)/\(stream.streamId)"
            sources[ObjectIdentifier(stream)] = source
            (stream.device as? AudioDevice)?.setOnAudioCallback { [speaker] frame in speaker.enqueue(frame, from: source) }
        }
    }

    func stage(_ stage: Stage, participant: ParticipantInfo, didRemove streams: [StageStream]) {
        for stream in streams {
            (stream.device as? AudioDevice)?.setOnAudioCallback(nil)
            if let source = sources.removeValue(forKey: ObjectIdentifier(stream)) { speaker.remove(source: source) }
        }
    }
}
