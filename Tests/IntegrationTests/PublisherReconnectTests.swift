import NIOCore
import StageControl
import StageWire
import Testing

/// A publisher that publishes again with the same token (its media reconnects) against a real
/// server: the subscriber's connection stays, the old session forwards until the new one has
/// connected, and a new session that never connects takes the old one down with it.
@Suite(.serialized)
struct PublisherReconnectTests {
    /// A hand-driven peer connected over UDP (check with USE-CANDIDATE, DTLS).
    static func connectUDP(_ peer: HandDrivenPeer, _ answer: HandDrivenPeer.Answer) async throws -> UDPTransport {
        let candidate = try #require(answer.candidate("udp", address: "127.0.0.1"))
        let udp = try await UDPTransport.open(to: SocketAddress(ipAddress: "127.0.0.1", port: Int(candidate.port)))
        #expect(await peer.check(over: udp, answer: answer, useCandidate: true)?.type == .bindingSuccess)
        try await peer.connectDTLS(over: udp, answer: answer)
        return udp
    }

    /// A publisher and a WHEP subscriber, both connected over UDP, media flowing.
    struct Setup {
        var server: LocalStageServer
        var stage: ICETCPTests.Stage
        var publisher: HandDrivenPeer
        var publisherAnswer: HandDrivenPeer.Answer
        var publisherUDP: UDPTransport
        var viewer: HandDrivenPeer
        var viewerAnswer: HandDrivenPeer.Answer
        var viewerUDP: UDPTransport
    }

    static func setUp() async throws -> Setup {
        let server = try LocalStageServer()
        try await server.start()
        let stage = try await ICETCPTests.stage(on: server)
        let publisher = try HandDrivenPeer(sendingSSRC: 0x1111)
        let publisherAnswer = try await publisher.negotiate(port: server.port, path: "/whip", token: stage.publisherToken)
        let publisherUDP = try await connectUDP(publisher, publisherAnswer)
        let viewer = try HandDrivenPeer(sendingSSRC: nil)
        let viewerAnswer = try await viewer.negotiate(port: server.port, path: "/whep/\(stage.publisherId)", token: stage.viewerToken)
        let viewerUDP = try await connectUDP(viewer, viewerAnswer)
        #expect(await ICETCPTests.relay(20, from: publisher, over: publisherUDP, to: viewer, on: viewerUDP, firstSequence: 0) >= 19)
        return Setup(server: server, stage: stage, publisher: publisher, publisherAnswer: publisherAnswer, publisherUDP: publisherUDP,
                     viewer: viewer, viewerAnswer: viewerAnswer, viewerUDP: viewerUDP)
    }

    @Test("publishing again: the old session forwards until the new one connects, then the subscriber gets the new one's media on the same connection and SSRC")
    func handOverWhenTheNewSessionConnects() async throws {
        let setup = try await Self.setUp()
        defer { setup.server.stop() }
        let (viewer, viewerUDP) = (setup.viewer, setup.viewerUDP)

        let successor = try HandDrivenPeer(sendingSSRC: 0x2222)
        let successorAnswer = try await successor.negotiate(port: setup.server.port, path: "/whip", token: setup.stage.publisherToken)
        #expect(await ICETCPTests.relay(20, from: setup.publisher, over: setup.publisherUDP, to: viewer, on: viewerUDP, firstSequence: 100) >= 19,
                "the new session's offer alone stops nothing: the old one forwards until the new one is up")

        // The server completes DTLS (and hands over) before the client does.
        let successorUDP = try await Self.connectUDP(successor, successorAnswer)
        #expect(await setup.publisher.check(over: setup.publisherUDP, answer: setup.publisherAnswer, useCandidate: false)?.type == .bindingError,
                "the replaced session is closed once the new one connected (its credentials get 401)")
        for sequence in UInt16(200)..<220 { successor.sendRTP(sequence: sequence, over: successorUDP) }
        var received: [[UInt8]] = []
        while received.count < 20, let packet = await viewer.receiveRTP(over: viewerUDP, timeout: .milliseconds(800)) {
            if let sequence = HandDrivenPeer.sentSequence(packet), (200..<220).contains(sequence) { received.append(packet) }
        }
        #expect(received.count >= 19, "the subscriber receives the new session's media")
        #expect(received.allSatisfy { HandDrivenPeer.ssrc($0) == setup.viewerAnswer.ssrc }, "on the SSRC its answer announced")
        #expect(await viewer.check(over: viewerUDP, answer: setup.viewerAnswer, useCandidate: false)?.type == .bindingSuccess,
                "over the same subscriber connection")
        await successorUDP.close()
        await setup.publisherUDP.close()
        await viewerUDP.close()
    }

    @Test("a new publish session that closes before it connects takes the session it was to replace with it, and its subscribers'")
    func abandonedReplacement() async throws {
        let setup = try await Self.setUp()
        defer { setup.server.stop() }
        let successor = try HandDrivenPeer(sendingSSRC: 0x2222)
        let successorAnswer = try await successor.negotiate(port: setup.server.port, path: "/whip", token: setup.stage.publisherToken)
        let location = try #require(successorAnswer.location)
        let anonymous = try await RawHTTP.request("DELETE", ip: "127.0.0.1", port: setup.server.port, path: location)
        #expect(anonymous.status == 401, "a WHIP resource is deleted only with its participant's token")
        let deleted = try await RawHTTP.request("DELETE", ip: "127.0.0.1", port: setup.server.port, path: location,
                                                headers: ["Authorization": "Bearer \(setup.stage.publisherToken)"])
        #expect(deleted.status == 200)
        #expect(await setup.publisher.check(over: setup.publisherUDP, answer: setup.publisherAnswer, useCandidate: false)?.type == .bindingError,
                "the session it was to replace is closed")
        #expect(await setup.viewer.check(over: setup.viewerUDP, answer: setup.viewerAnswer, useCandidate: false)?.type == .bindingError,
                "and with it the subscriber's (its publisher left)")
        await setup.publisherUDP.close()
        await setup.viewerUDP.close()
    }
}
