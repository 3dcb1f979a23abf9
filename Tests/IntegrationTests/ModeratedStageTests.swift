import Foundation
import Testing
import StageControl
@testable import StageKit
import StageProtocol

/// Three SDK clients on a real server: a host who publishes, a guest who publishes, and an
/// invisible moderator (role=moderator, subscribe-only). Each sees an exact event sequence.
@Suite(.serialized)
@MainActor
struct ModeratedStageTests {
    struct Client {
        let stage: Stage
        let renderer: RecordingRenderer
        let strategy: ModeratedStrategy
        let participantId: String
        let token: String
    }

    func client(_ api: ControlPlaneClient, stageArn: String, user: String, role: String, capabilities: [String]) async throws -> Client {
        let token = try await api.createParticipantToken(stageArn: stageArn, userId: user, attributes: ["role": role],
                                                         capabilities: capabilities)
        let strategy = ModeratedStrategy(streams: ModeratedStrategy.cameraAndMic())
        let stage = try Stage(token: token.token ?? "", strategy: strategy)
        let renderer = RecordingRenderer()
        stage.addRenderer(renderer)
        stage.errorDelegate = renderer
        return Client(stage: stage, renderer: renderer, strategy: strategy, participantId: token.participantId ?? "", token: token.token ?? "")
    }

    @Test("host, guest and moderator see exactly the IVS renderer sequence; nobody sees the moderator")
    func moderatedStage() async throws {
        let server = try LocalStageServer()
        try await server.start()
        let api = server.api
        let stageArn = try await api.createStage(name: "moderated").arn
        let host = try await client(api, stageArn: stageArn, user: "host", role: "host", capabilities: ["PUBLISH", "SUBSCRIBE"])
        let guest = try await client(api, stageArn: stageArn, user: "guest", role: "guest", capabilities: ["PUBLISH", "SUBSCRIBE"])
        let moderator = try await client(api, stageArn: stageArn, user: "moderator", role: "moderator", capabilities: ["SUBSCRIBE"])

        // The host joins alone and publishes.
        try await host.stage.join()
        #expect(await host.renderer.next(6) == [
            "connection connecting", "connection connected", "join host",
            "publish host attemptingPublish", "publish host published", "add host camera,mic",
        ])

        // The moderator joins: it sees and subscribes to the host; the host is told nothing.
        try await moderator.stage.join()
        #expect(await moderator.renderer.next(8) == [
            "connection connecting", "connection connected", "join moderator",
            "join host", "publish host published",
            "subscribe host attemptingSubscribe", "subscribe host subscribed", "add host camera,mic",
        ])

        // The guest joins and publishes: host and moderator see the guest; the guest sees only the host.
        try await guest.stage.join()
        #expect(await guest.renderer.next(11) == [
            "connection connecting", "connection connected", "join guest",
            "join host", "publish host published",
            "publish guest attemptingPublish", "subscribe host attemptingSubscribe",
            "publish guest published", "add guest camera,mic",
            "subscribe host subscribed", "add host camera,mic",
        ])
        let guestSeenByOthers = [
            "join guest", "publish guest published",
            "subscribe guest attemptingSubscribe", "subscribe guest subscribed", "add guest camera,mic",
        ]
        #expect(await host.renderer.next(5) == guestSeenByOthers)
        #expect(await moderator.renderer.next(5) == guestSeenByOthers)

        // Mute reaches the remote renderers and the local one.
        guest.strategy.streams[1].setMuted(true)
        #expect(await guest.renderer.next(1) == ["mute guest mic=true"])
        #expect(await host.renderer.next(1) == ["mute guest mic=true"])
        #expect(await moderator.renderer.next(1) == ["mute guest mic=true"])

        // An unchanged strategy sends nothing; audioVideo → audioOnly removes the video stream only.
        let sentBefore = guest.stage.strategyRequestsSent
        guest.stage.refreshStrategy()
        #expect(guest.stage.strategyRequestsSent == sentBefore)
        guest.strategy.overrides["host"] = .audioOnly
        guest.stage.refreshStrategy()
        #expect(guest.stage.strategyRequestsSent == sentBefore + 1)
        #expect(await guest.renderer.next(1) == ["remove host camera"])

        // DisconnectParticipant removes the guest everywhere and revokes its token.
        try await api.disconnectParticipant(stageArn: stageArn, participantId: guest.participantId, reason: "test over")
        #expect(await guest.renderer.next(8) == [
            "remove host mic", "subscribe host notSubscribed", "publish host notPublished", "leave host",
            "remove guest camera,mic", "publish guest notPublished", "leave guest", "connection disconnected",
        ])
        #expect(guest.renderer.lastConnectionError?.code == .disconnected(.disconnectedByOperator))
        let guestGone = ["remove guest camera,mic", "subscribe guest notSubscribed", "publish guest notPublished", "leave guest"]
        #expect(await host.renderer.next(4) == guestGone)
        #expect(await moderator.renderer.next(4) == guestGone)

        let rejoin = try Stage(token: guest.token, strategy: guest.strategy)
        await #expect(throws: StageError(code: .server(.participantRevoked), message: "participant \(guest.participantId) was disconnected from this stage and cannot join again")) {
            try await rejoin.join()
        }

        // The host leaves; the moderator sees it go; nobody ever saw "join moderator" but the moderator.
        host.stage.leave()
        #expect(await host.renderer.next(4) == ["remove host camera,mic", "publish host notPublished", "leave host", "connection disconnected"])
        #expect(await moderator.renderer.next(4) == ["remove host camera,mic", "subscribe host notSubscribed", "publish host notPublished", "leave host"])
        moderator.stage.leave()
        #expect(await moderator.renderer.next(2) == ["leave moderator", "connection disconnected"])
        #expect(host.renderer.events.isEmpty && guest.renderer.events.isEmpty)
        server.stop()
    }
}
