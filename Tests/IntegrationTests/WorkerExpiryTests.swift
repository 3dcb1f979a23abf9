import Foundation
import Testing
import StageControl
@testable import StageKit
import StageProtocol
import StageServer

/// Token expiry reaches a subscriber on another worker than its stage's first: with two media
/// workers and `--worker-max-consumers 1`, a first guest fills the worker the host publishes on,
/// so a second guest, whose token expires a few seconds after it joins, watches through a router
/// on the other worker, piped from the first. When its token expires the server expels it and
/// ends its media there; its frames stop, while the first guest's go on.
@Suite(.serialized)
@MainActor
struct WorkerExpiryTests {
    @Test("an expired token stops a piped subscriber's media on the far worker, within 1.5 s of its expiry")
    func expiryEndsPipedMedia() async throws {
        let server = try LocalStageServer(extraArguments: ["--media-workers", "2", "--worker-max-consumers", "1"])
        try await server.start()
        defer { server.stop() }
        let stageArn = try await server.api.createStage(name: "expiry").arn
        let streams = try MediaStageTests.mediaStreams()
        let host = try await client(server, stageArn: stageArn, user: "host", capabilities: ["PUBLISH"], streams: streams)
        let near = try await client(server, stageArn: stageArn, user: "near", capabilities: ["SUBSCRIBE"])
        let expiresIn = 8.0
        let far = try await client(server, stageArn: stageArn, user: "far", capabilities: ["SUBSCRIBE"], expiringIn: expiresIn)
        let expiry = Date().addingTimeInterval(expiresIn)

        try await host.stage.join()
        try await near.stage.join()
        let hostId = host.stage.localParticipantId
        let nearFrames = try await frames(of: near.stage, from: hostId)
        await waitUntil(.seconds(15)) { nearFrames.count > 0 }
        try await far.stage.join()
        let farFrames = try await frames(of: far.stage, from: hostId)
        await waitUntil(.seconds(15)) { farFrames.count > 0 }
        #expect(farFrames.count > 0, "the far guest decodes")
        let metrics = try await server.metrics()
        #expect(metrics.contains(#"proscenium_media_worker_routers{worker="1"} 1.0"#), "a router of the stage on the second worker")
        #expect(metrics.contains("proscenium_media_pipes 1.0"), "piped from the first")

        // Expelled at most 500 ms after the expiry (the socket's liveness check), then its media ends.
        try await Task.sleep(for: .seconds(max(expiry.timeIntervalSinceNow, 0) + 0.5 + 1.0))
        let farAtStop = farFrames.count, nearAtStop = nearFrames.count
        try await Task.sleep(for: .seconds(2))
        print("far guest: \(farAtStop) frames by 1.5 s after its token expired, \(farFrames.count - farAtStop) in the 2 s after; "
              + "near guest: \(nearFrames.count - nearAtStop) in those 2 s")
        #expect(farFrames.count == farAtStop, "frames after the expired token's media was ended")
        #expect(nearFrames.count - nearAtStop > 20, "the near guest's media goes on")
        for client in [far, near, host] { client.stage.leave() }
    }

    func frames(of stage: Stage, from participantId: String) async throws -> FrameLog {
        await waitUntil { stage.roster[participantId]?.stageStreams.values.contains { $0.kind == .video } == true }
        let video = try #require(stage.roster[participantId]?.stageStreams.values.first { $0.kind == .video })
        let log = FrameLog()
        log.attach(to: video.device)
        return log
    }

    /// A client with a token from the server, re-signed to expire `expiringIn` seconds from now when given.
    func client(_ server: LocalStageServer, stageArn: String, user: String, capabilities: [String],
                streams: [LocalStageStream] = [], expiringIn: Double? = nil) async throws -> MediaStageTests.Client {
        var token = try await server.api.createParticipantToken(stageArn: stageArn, userId: user, attributes: ["role": user],
                                                                capabilities: capabilities).token ?? ""
        if let expiringIn {
            let keyPEM = try String(contentsOf: server.dataDirectory.appendingPathComponent("token-signing-key.pem"), encoding: .utf8)
            var claims = try ParticipantTokenClaims.decodeUnverified(token)
            claims.exp = Int(Date().timeIntervalSince1970 + expiringIn)
            token = try ParticipantTokenSigner(pemRepresentation: keyPEM).sign(claims)
        }
        let strategy = ModeratedStrategy(streams: streams)
        strategy.publish = !streams.isEmpty
        let stage = try Stage(token: token, strategy: strategy)
        let renderer = RecordingRenderer()
        stage.addRenderer(renderer)
        stage.errorDelegate = renderer
        return MediaStageTests.Client(stage: stage, renderer: renderer, strategy: strategy)
    }
}
