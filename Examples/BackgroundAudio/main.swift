// Background audio (IVS guide): when the app goes to the background it stops publishing and
// receives audio only; back in the foreground it publishes and receives video again. Here
// SIGUSR1 stands for "the app changed state": kill -USR1 <pid>.
import Dispatch
import Foundation
import StageKit

@MainActor
final class Background: StageStrategy, StageRenderer {
    var inBackground = false
    let streams = DeviceDiscovery().defaultDevices().map { LocalStageStream(device: $0) }

    func stage(_ stage: Stage, shouldSubscribeToParticipant participant: ParticipantInfo) -> SubscribeType {
        inBackground ? .audioOnly : .audioVideo
    }
    func stage(_ stage: Stage, shouldPublishParticipant participant: ParticipantInfo) -> Bool { !inBackground }
    func stage(_ stage: Stage, streamsToPublishForParticipant participant: ParticipantInfo) -> [LocalStageStream] { streams }

    func stage(_ stage: Stage, participant: ParticipantInfo, didRemove streams: [StageStream]) {
        print("\(participant.userId): removed \(streams.map(\.streamId))")
    }
    func stage(_ stage: Stage, participant: ParticipantInfo, didAdd streams: [StageStream]) {
        print("\(participant.userId): added \(streams.map(\.streamId))")
    }
}

guard CommandLine.arguments.count == 2 else { fatalError("usage: example-background-audio TOKEN") }
let app = Background()
let stage = try Stage(token: CommandLine.arguments[1], strategy: app)
stage.addRenderer(app)
try await stage.join()
signal(SIGUSR1, SIG_IGN)
let toggle = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: .main)
toggle.setEventHandler {
    MainActor.assumeIsolated {
        app.inBackground.toggle()
        stage.refreshStrategy()
        print(app.inBackground ? "background: audio only, not publishing" : "foreground: publishing, audio and video")
    }
}
toggle.resume()
try await Task.sleep(for: .seconds(3600))
