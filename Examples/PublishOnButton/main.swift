// Publish on a button (IVS guide): the strategy reads a flag; pressing the "button" (Enter)
// flips it and calls refreshStrategy(), which publishes or unpublishes — nothing else changes.
import Foundation
import StageKit

@MainActor
final class Button: StageStrategy {
    var publishing = false
    let streams = DeviceDiscovery().defaultDevices().map { LocalStageStream(device: $0) }

    func stage(_ stage: Stage, shouldSubscribeToParticipant participant: ParticipantInfo) -> SubscribeType { .audioVideo }
    func stage(_ stage: Stage, shouldPublishParticipant participant: ParticipantInfo) -> Bool { publishing }
    func stage(_ stage: Stage, streamsToPublishForParticipant participant: ParticipantInfo) -> [LocalStageStream] { streams }
}

guard CommandLine.arguments.count == 2 else { fatalError("usage: example-publish-on-button TOKEN") }
let button = Button()
let stage = try Stage(token: CommandLine.arguments[1], strategy: button)
try await stage.join()
print("press Enter to start or stop publishing")
let presses = AsyncStream<Void> { continuation in
    Thread {
        while readLine() != nil { continuation.yield() }
        continuation.finish()
    }.start()
}
for await _ in presses {
    button.publishing.toggle()
    stage.refreshStrategy()
    print(button.publishing ? "publishing" : "not publishing")
}
stage.leave()
