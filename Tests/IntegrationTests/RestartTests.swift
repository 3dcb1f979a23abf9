import Foundation
import Testing
import StageControl
@testable import StageKit
import StageProtocol

/// Everything the control plane reports survives a restart of the server process.
@Suite(.serialized)
@MainActor
struct RestartTests {
    @Test("stages, sessions, participants, events, revocations and keys survive a restart")
    func stateSurvivesRestart() async throws {
        let server = try LocalStageServer()
        try await server.start()
        let api = server.api
        let stage = try await api.createStage(name: "durable", tags: ["team": "a"])
        let host = try await api.createParticipantToken(stageArn: stage.arn, userId: "host", attributes: ["role": "host"])
        let kicked = try await api.createParticipantToken(stageArn: stage.arn, userId: "kicked")
        let later = try await api.createParticipantToken(stageArn: stage.arn, userId: "later")

        // A session: the host publishes and leaves; "kicked" is disconnected by the operator.
        let strategy = ModeratedStrategy(streams: ModeratedStrategy.cameraAndMic())
        let renderer = RecordingRenderer()
        let hostStage = try Stage(token: host.token ?? "", strategy: strategy)
        hostStage.addRenderer(renderer)
        try await hostStage.join()
        _ = await renderer.next(6)
        let kickedSocket = RawSocket(url: stage.endpoints?.events ?? "")
        #expect(await kickedSocket.join(token: kicked.token ?? "") != nil)
        try await api.disconnectParticipant(stageArn: stage.arn, participantId: kicked.participantId ?? "", reason: "rules")
        hostStage.leave()
        let sessions = try await api.call("ListStageSessions", ["stageArn": stage.arn], as: IVSAPI.ListStageSessionsResponse.self)
        let sessionId = try #require(sessions.stageSessions.first?.sessionId)

        try await server.restart()

        #expect(try await api.getStage(arn: stage.arn).tags == ["team": "a"])
        let session = try await api.call("GetStageSession", ["stageArn": stage.arn, "sessionId": sessionId],
                                         as: IVSAPI.GetStageSessionResponse.self).stageSession
        #expect(session.endTime != nil)
        let participants = try await api.call("ListParticipants", ["stageArn": stage.arn, "sessionId": sessionId],
                                              as: IVSAPI.ListParticipantsResponse.self).participants
        #expect(Set(participants.compactMap(\.userId)) == ["host", "kicked"])
        #expect(participants.allSatisfy { $0.state == "DISCONNECTED" })
        #expect(participants.first { $0.userId == "host" }?.published == true)
        let events = try await api.call("ListParticipantEvents", [
            "stageArn": stage.arn, "sessionId": sessionId, "participantId": host.participantId ?? "",
        ], as: IVSAPI.ListParticipantEventsResponse.self).events
        #expect(events.compactMap(\.name) == ["JOINED", "PUBLISH_STARTED", "LEFT"])

        // The revocation holds, and a token minted before the restart still joins (same signing key).
        let rejoin = RawSocket(url: stage.endpoints?.events ?? "")
        rejoin.send(.join(.init(token: kicked.token ?? "")))
        #expect(await rejoin.nextError()?.code == .participantRevoked)
        let fresh = RawSocket(url: stage.endpoints?.events ?? "")
        #expect(await fresh.join(token: later.token ?? "") != nil)
        server.stop()
    }
}
