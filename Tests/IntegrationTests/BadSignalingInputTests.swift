import Foundation
import Testing
import StageControl
@testable import StageKit
import StageProtocol
import StageServer

/// Every kind of bad signaling input gets its error code, and a bystander on the same stage
/// keeps being served (ping answered, fresh joins admitted).
@Suite(.serialized)
@MainActor
struct BadSignalingInputTests {
    @MainActor
    struct Fixture {
        let server: LocalStageServer
        let stage: IVSAPIStage
        let bystander: RawSocket
        var api: ControlPlaneClient { server.api }

        func token(_ user: String = "u", capabilities: [String] = ["PUBLISH", "SUBSCRIBE"]) async throws -> String {
            try await api.createParticipantToken(stageArn: stage.arn, userId: user, capabilities: capabilities).token ?? ""
        }

        /// The bystander still answers, and a new participant can still join.
        func stillServing() async throws -> Bool {
            guard await bystander.isServed() else { return false }
            let fresh = RawSocket(url: stage.events)
            return await fresh.join(token: try await token("fresh")) != nil
        }
    }

    struct IVSAPIStage {
        let arn: String
        let id: String
        let events: String
    }

    func fixture() async throws -> Fixture {
        let server = try await SharedServer.get()
        let created = try await server.api.createStage(name: "bad-input")
        let stage = IVSAPIStage(arn: created.arn, id: String(created.arn.split(separator: "/").last ?? ""),
                                events: created.endpoints?.events ?? "")
        let bystander = RawSocket(url: stage.events)
        let token = try await server.api.createParticipantToken(stageArn: stage.arn, userId: "bystander").token ?? ""
        #expect(await bystander.join(token: token) != nil)
        bystander.send(.publish(.init(requestId: "b1", streams: [.init(streamId: "mic", kind: .audio)])))
        #expect(await bystander.next(where: { if case .publishState = $0 { true } else { false } }) != nil)
        return Fixture(server: server, stage: stage, bystander: bystander)
    }

    nonisolated static let malformedFrames: [(String, String, SignalErrorCode)] = [
        ("not JSON", "{nope", .malformedMessage),
        ("a JSON array", "[1,2]", .malformedMessage),
        ("unknown type", #"{"v":1,"type":"teleport"}"#, .malformedMessage),
        ("version 2", #"{"v":2,"type":"ping","nonce":1}"#, .unsupportedVersion),
        ("missing field", #"{"v":1,"type":"subscribe","requestId":"x"}"#, .malformedMessage),
        ("bad enum", #"{"v":1,"type":"subscribe","requestId":"x","participantId":"p","subscribeType":"video"}"#, .malformedMessage),
        ("second join", #"{"v":1,"type":"join","token":"x"}"#, .alreadyJoined),
        ("publish no streams", #"{"v":1,"type":"publish","requestId":"x","streams":[]}"#, .invalidField),
        ("subscribe to nobody", #"{"v":1,"type":"subscribe","requestId":"x","participantId":"ghost","subscribeType":"audioOnly"}"#, .publisherNotFound),
        ("mute when not publishing", #"{"v":1,"type":"mute","streamId":"mic","muted":true}"#, .invalidField),
        ("sdpOffer with unusable SDP", #"{"v":1,"type":"sdpOffer","requestId":"x","purpose":"publish","sdp":"v=0"}"#, .invalidField),
        ("sdpOffer to subscribe to nobody", #"{"v":1,"type":"sdpOffer","requestId":"x","purpose":"subscribe","sdp":"v=0"}"#, .invalidField),
    ]

    @Test("a malformed frame after join gets its error code and the socket stays usable",
          arguments: malformedFrames.indices)
    func malformedFrameAfterJoin(_ index: Int) async throws {
        let (_, text, code) = Self.malformedFrames[index]
        let f = try await fixture()
        let socket = RawSocket(url: f.stage.events)
        #expect(await socket.join(token: try await f.token()) != nil)
        socket.sendText(text)
        #expect(await socket.nextError()?.code == code)
        #expect(await socket.isServed())
        #expect(try await f.stillServing())
    }

    /// A join refused for its token: the error code, then the server closes the socket.
    func expectRefusedJoin(_ f: Fixture, url: String? = nil, token: String, code: SignalErrorCode,
                           messageContains: String) async throws {
        let socket = RawSocket(url: url ?? f.stage.events)
        socket.send(.join(.init(token: token)))
        let error = await socket.nextError()
        #expect(error?.code == code)
        #expect(error?.message.contains(messageContains) == true, "message: \(error?.message ?? "none")")
        #expect(await socket.waitClosed())
        #expect(try await f.stillServing())
    }

    @Test("a first frame that is not join is refused with notJoined")
    func firstFrameNotJoin() async throws {
        let f = try await fixture()
        let socket = RawSocket(url: f.stage.events)
        socket.send(.ping(.init(nonce: 1)))
        #expect(await socket.nextError()?.code == .notJoined)
        #expect(await socket.waitClosed())
        #expect(try await f.stillServing())
    }

    @Test("a token with a tampered signature is refused")
    func tamperedSignature() async throws {
        let f = try await fixture()
        var token = try await f.token()
        let last = token.removeLast()
        token.append(last == "A" ? "B" : "A")
        try await expectRefusedJoin(f, token: token, code: .invalidToken, messageContains: "signature")
    }

    @Test("a token whose claims were edited is refused")
    func tamperedClaims() async throws {
        let f = try await fixture()
        let parts = try await f.token().split(separator: ".").map(String.init)
        var claims = try ParticipantTokenClaims.decodeUnverified(parts.joined(separator: "."))
        claims.capabilities = Capabilities(allowPublish: true, allowSubscribe: true)
        claims.userId = "mallory"
        let forged = parts[0] + "." + Base64URL.encode(try JSONEncoder().encode(claims)) + "." + parts[2]
        try await expectRefusedJoin(f, token: forged, code: .invalidToken, messageContains: "signature")
    }

    @Test("an expired token is refused with tokenExpired")
    func expiredToken() async throws {
        let f = try await fixture()
        let keyPEM = try String(contentsOf: f.server.dataDirectory.appendingPathComponent("token-signing-key.pem"), encoding: .utf8)
        var claims = try ParticipantTokenClaims.decodeUnverified(try await f.token())
        claims.exp = Int(Date().timeIntervalSince1970) - 60
        let expired = try ParticipantTokenSigner(pemRepresentation: keyPEM).sign(claims)
        try await expectRefusedJoin(f, token: expired, code: .tokenExpired, messageContains: "expired")
    }

    @Test("a token for another stage is refused on this stage's socket")
    func tokenForAnotherStage() async throws {
        let f = try await fixture()
        let other = try await f.api.createStage(name: "other")
        let otherToken = try await f.api.createParticipantToken(stageArn: other.arn).token ?? ""
        try await expectRefusedJoin(f, token: otherToken, code: .invalidToken, messageContains: "issued for stage")
    }

    @Test("a disconnected (revoked) participant cannot join again")
    func revokedParticipant() async throws {
        let f = try await fixture()
        let minted = try await f.api.createParticipantToken(stageArn: f.stage.arn, userId: "revoked")
        let socket = RawSocket(url: f.stage.events)
        #expect(await socket.join(token: minted.token ?? "") != nil)
        try await f.api.disconnectParticipant(stageArn: f.stage.arn, participantId: minted.participantId ?? "", reason: "kicked")
        let disconnect = await socket.next(where: { if case .disconnect = $0 { true } else { false } })
        #expect(disconnect == .disconnect(.init(reason: .disconnectedByOperator, message: "kicked")))
        #expect(await socket.waitClosed())
        try await expectRefusedJoin(f, token: minted.token ?? "", code: .participantRevoked, messageContains: "cannot join again")
    }

    @Test("deleting a stage disconnects its participants and its tokens stop working")
    func deletedStage() async throws {
        let f = try await fixture()
        let doomed = try await f.api.createStage(name: "doomed")
        let token = try await f.api.createParticipantToken(stageArn: doomed.arn).token ?? ""
        let socket = RawSocket(url: doomed.endpoints?.events ?? "")
        #expect(await socket.join(token: token) != nil)
        try await f.api.deleteStage(arn: doomed.arn)
        #expect(await socket.next(where: { if case .disconnect(let d) = $0 { d.reason == .stageDeleted } else { false } }) != nil)
        try await expectRefusedJoin(f, url: doomed.endpoints?.events, token: token, code: .stageNotFound, messageContains: "does not exist")
    }

    @Test("a subscribe-only token that asks to publish gets insufficientCapabilities and nothing changes")
    func subscribeOnlyCannotPublish() async throws {
        let f = try await fixture()
        let socket = RawSocket(url: f.stage.events)
        #expect(await socket.join(token: try await f.token("viewer", capabilities: ["SUBSCRIBE"])) != nil)
        socket.send(.publish(.init(requestId: "p1", streams: [.init(streamId: "camera", kind: .video)])))
        let error = await socket.nextError()
        #expect(error?.code == .insufficientCapabilities)
        #expect(error?.requestId == "p1")
        #expect(await f.bystander.isServed())
        #expect(!f.bystander.received.contains { if case .participantJoined = $0 { true } else { false } })
    }

    @Test("a frame over 64 KiB closes that socket only")
    func oversizedFrame() async throws {
        let f = try await fixture()
        let socket = RawSocket(url: f.stage.events)
        #expect(await socket.join(token: try await f.token()) != nil)
        socket.sendText(#"{"v":1,"type":"ping","nonce":1,"pad":""# + String(repeating: "x", count: 100_000) + #""}"#)
        #expect(await socket.waitClosed())
        #expect(try await f.stillServing())
    }

    @Test("a flooding client is rate limited, then disconnected; others are served")
    func flooding() async throws {
        let f = try await fixture()
        let socket = RawSocket(url: f.stage.events)
        #expect(await socket.join(token: try await f.token("flooder")) != nil)
        for nonce in 0..<400 { socket.send(.ping(.init(nonce: nonce))) }
        #expect(await socket.nextError()?.code == .rateLimited)
        let disconnect = await socket.next(where: { if case .disconnect = $0 { true } else { false } })
        #expect(disconnect.map { if case .disconnect(let d) = $0 { d.reason == .protocolViolation } else { false } } == true)
        #expect(await socket.waitClosed())
        #expect(try await f.stillServing())
        let metrics = try await f.server.metrics()
        #expect(metrics.contains(#"proscenium_signaling_rejected_total{reason="rateLimited"}"#))
    }
}
