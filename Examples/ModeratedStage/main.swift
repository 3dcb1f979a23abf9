// Moderated stage (IVS guide): participants with the attribute role=moderator watch everyone
// and are never published nor subscribed to; guests publish and see each other.
import Foundation
import StageKit

@MainActor
final class Moderated: StageStrategy, StageRenderer {
    let streams = DeviceDiscovery().defaultDevices().map { LocalStageStream(device: $0) }

    func stage(_ stage: Stage, shouldSubscribeToParticipant participant: ParticipantInfo) -> SubscribeType {
        participant.attributes["role"] == "moderator" ? .none : .audioVideo
    }
    func stage(_ stage: Stage, shouldPublishParticipant participant: ParticipantInfo) -> Bool {
        participant.attributes["role"] != "moderator"
    }
    func stage(_ stage: Stage, streamsToPublishForParticipant participant: ParticipantInfo) -> [LocalStageStream] { streams }

    func stage(_ stage: Stage, participantDidJoin participant: ParticipantInfo) {
        print("joined: \(participant.userId) role=\(participant.attributes["role"] ?? "-")")
    }
}

guard CommandLine.arguments.count == 2 else { fatalError("usage: example-moderated-stage TOKEN") }
let strategy = Moderated()
let stage = try Stage(token: CommandLine.arguments[1], strategy: strategy)
stage.addRenderer(strategy)
try await stage.join()
try await Task.sleep(for: .seconds(3600))
