// Video chat (IVS guide, "subscribe to all, always publish"): everyone publishes their camera
// and microphone and everyone sees and hears everyone.
import Foundation
import StageKit

@MainActor
final class VideoChat: StageStrategy, StageRenderer {
    let streams = DeviceDiscovery().defaultDevices().map { LocalStageStream(device: $0) }

    func stage(_ stage: Stage, shouldSubscribeToParticipant participant: ParticipantInfo) -> SubscribeType { .audioVideo }
    func stage(_ stage: Stage, shouldPublishParticipant participant: ParticipantInfo) -> Bool { true }
    func stage(_ stage: Stage, streamsToPublishForParticipant participant: ParticipantInfo) -> [LocalStageStream] { streams }

    func stage(_ stage: Stage, participant: ParticipantInfo, didAdd streams: [StageStream]) {
        guard !participant.isLocal else { return }
        for stream in streams {
            (stream.device as? ImageDevice)?.setOnFrameCallback { frame in
                print("\(participant.userId): frame \(frame.width)x\(frame.height)")
            }
        }
    }
}

guard CommandLine.arguments.count == 2 else { fatalError("usage: example-video-chat TOKEN") }
let chat = VideoChat()
let stage = try Stage(token: CommandLine.arguments[1], strategy: chat)
stage.addRenderer(chat)
try await stage.join()
try await Task.sleep(for: .seconds(3600))
