import Foundation
import Testing
import StageControl
@testable import StageKit
import StageMedia

/// SDK media end to end on loopback through a real server process: a host publishes the
/// synthetic camera (VP8 simulcast) and microphone (Opus); a guest and an invisible moderator
/// receive, decode and check what they got against what was captured.
@Suite(.serialized)
@MainActor
struct MediaStageTests {
    struct Client {
        let stage: Stage
        let renderer: RecordingRenderer
        let strategy: ModeratedStrategy
    }

    static func mediaStreams() throws -> [LocalStageStream] {
        var configuration = LocalStageStreamConfiguration()
        try configuration.video.setSize(width: 640, height: 360)
        try configuration.video.setTargetFramerate(20)
        let devices = DeviceDiscovery().listLocalDevices()
        let camera = try #require(devices.first { $0.kind == .video })
        let mic = try #require(devices.first { $0.kind == .audio })
        return [LocalStageStream(device: camera, configuration: configuration), LocalStageStream(device: mic)]
    }

    func client(_ server: LocalStageServer, stageArn: String, user: String, role: String, capabilities: [String],
                streams: [LocalStageStream] = []) async throws -> Client {
        let token = try await server.api.createParticipantToken(stageArn: stageArn, userId: user, attributes: ["role": role],
                                                                capabilities: capabilities)
        let strategy = ModeratedStrategy(streams: streams)
        strategy.publish = !streams.isEmpty
        let stage = try Stage(token: token.token ?? "", strategy: strategy)
        let renderer = RecordingRenderer()
        stage.addRenderer(renderer)
        stage.errorDelegate = renderer
        return Client(stage: stage, renderer: renderer, strategy: strategy)
    }

    /// The received stream of `kind` the renderer was given for `user`.
    func receivedStream(_ stage: Stage, from participantId: String, kind: StreamKind) -> StageStream? {
        stage.remotes[participantId]?.stageStreams.values.first { $0.kind == kind }
    }

    @Test("host publishes simulcast VP8 + Opus; guest decodes ≥ 95 % of frames at PSNR ≥ 30 dB; the moderator receives unseen")
    func publishAndReceive() async throws {
        let server = try LocalStageServer()
        try await server.start()
        let stageArn = try await server.api.createStage(name: "media").arn
        let streams = try Self.mediaStreams()
        let host = try await client(server, stageArn: stageArn, user: "host", role: "host", capabilities: ["PUBLISH", "SUBSCRIBE"], streams: streams)
        let guest = try await client(server, stageArn: stageArn, user: "guest", role: "guest", capabilities: ["SUBSCRIBE"])
        let moderator = try await client(server, stageArn: stageArn, user: "moderator", role: "moderator", capabilities: ["SUBSCRIBE"])
        let captured = FrameLog()
        captured.attach(to: streams[0].device)

        try await host.stage.join()
        try await guest.stage.join()
        try await moderator.stage.join()
        let hostId = host.stage.localParticipantId
        await waitUntil { guest.stage.remotes[hostId]?.info.subscribeState == .subscribed && moderator.stage.remotes[hostId]?.info.subscribeState == .subscribed }
        let guestVideo = try #require(receivedStream(guest.stage, from: hostId, kind: .video))
        let guestAudio = try #require(receivedStream(guest.stage, from: hostId, kind: .audio))
        let moderatorVideo = try #require(receivedStream(moderator.stage, from: hostId, kind: .video))
        let decoded = FrameLog(), moderatorDecoded = FrameLog(), heard = AudioLog()
        decoded.attach(to: guestVideo.device)
        moderatorDecoded.attach(to: moderatorVideo.device)
        heard.attach(to: guestAudio.device)

        // Five seconds of media once the first frame is decoded.
        await waitUntil(.seconds(15)) { decoded.count > 0 }
        #expect(decoded.count > 0, "the guest decoded nothing; errors: \(guest.renderer.errors)")
        try await Task.sleep(for: .seconds(5))

        let received = decoded.numbers
        let first = try #require(received.min()), last = try #require(received.max())
        let sent = captured.numbers.filter { $0 >= first && $0 <= last }
        let ratio = Double(received.count) / Double(max(1, sent.count))
        print("media: guest decoded \(received.count) of \(sent.count) frames sent (\(String(format: "%.1f", ratio * 100)) %); unreadable stamps \(decoded.unreadableCount)")
        #expect(sent.count >= 80, "at 20 fps five seconds are ~100 frames")
        #expect(ratio >= 0.95)

        var psnrs: [Double] = []
        for number in received.sorted().suffix(60) {
            guard let sentFrame = captured.entry(number)?.frame, let got = decoded.entry(number)?.frame else { continue }
            #expect(got.width == 640 && got.height == 360, "the guest gets the top layer")
            psnrs.append(PSNR.luma(sentFrame, got))
        }
        psnrs.sort()
        print("media: PSNR over \(psnrs.count) frames: min \(psnrs.first ?? 0) median \(psnrs[psnrs.count / 2]) dB")
        #expect(psnrs.count >= 50)
        #expect(psnrs.first ?? 0 >= 30)

        #expect(heard.frames > 150, "≥ 3 s of 20 ms audio frames heard")
        #expect(heard.rms > -20 && heard.rms < -6, "the tone arrives at about its level (-12 dBFS RMS…); got \(heard.rms)")
        #expect(moderatorDecoded.count > 50, "the moderator receives media too")
        #expect(!host.renderer.events.contains("join moderator"), "nobody is told the moderator joined")
        #expect(!guest.renderer.events.contains("join moderator"))
        #expect(guest.renderer.errors.isEmpty && host.renderer.errors.isEmpty, "\(guest.renderer.errors) \(host.renderer.errors)")

        for client in [host, guest, moderator] { client.stage.leave() }
    }
}
