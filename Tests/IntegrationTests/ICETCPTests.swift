import NIOCore
import StageControl
import StageWire
import Testing

/// ICE-TCP (RFC 6544 passive, RFC 4571 framing) against a real server process: a publisher
/// whose only path is TCP, subscribers over UDP and TCP, path switches, and what an
/// unauthenticated client can and cannot do.
@Suite(.serialized)
struct ICETCPTests {
    /// A stage with a publisher token and a subscriber token.
    struct Stage {
        var publisherToken: String
        var publisherId: String
        var viewerToken: String
    }

    static func stage(on server: LocalStageServer) async throws -> Stage {
        let arn = try await server.api.createStage(name: "ice-tcp").arn
        let publisher = try await server.api.createParticipantToken(stageArn: arn, userId: "pub", capabilities: ["PUBLISH"])
        let viewer = try await server.api.createParticipantToken(stageArn: arn, userId: "view", capabilities: ["SUBSCRIBE"])
        return Stage(publisherToken: publisher.token ?? "", publisherId: publisher.participantId ?? "", viewerToken: viewer.token ?? "")
    }

    static func connectTCP(_ candidate: SDPCandidate) async throws -> FramedTCPTransport {
        try await FramedTCPTransport.connect(to: SocketAddress(ipAddress: candidate.address, port: Int(candidate.port)))
    }

    /// A publisher connected over ICE-TCP alone (check with USE-CANDIDATE, DTLS), sending nothing yet.
    static func tcpPublisher(_ server: LocalStageServer, _ stage: Stage) async throws -> (HandDrivenPeer, FramedTCPTransport) {
        let publisher = try HandDrivenPeer(sendingSSRC: 0x2222)
        let answer = try await publisher.negotiate(port: server.port, path: "/whip", token: stage.publisherToken)
        let candidate = try #require(answer.candidate("tcp", address: "127.0.0.1"))
        let tcp = try await connectTCP(candidate)
        let response = try #require(await publisher.check(over: tcp, answer: answer, useCandidate: true))
        #expect(response.type == .bindingSuccess)
        #expect(try response.xorMappedAddress?.port == UInt16(tcp.localAddress?.port ?? 0), "XOR-MAPPED-ADDRESS is the TCP client's address")
        try await publisher.connectDTLS(over: tcp, answer: answer)
        return (publisher, tcp)
    }

    static func dropped(_ metrics: String, _ reason: String) -> Double {
        let prefix = "proscenium_media_dropped_total{reason=\"\(reason)\"} "
        return metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)) } ?? 0
    }

    /// Sends `count` packets from the publisher and counts what `viewer` decrypts on `transport`.
    static func relay(_ count: Int, from publisher: HandDrivenPeer, over publisherPath: any TestPacketTransport,
                      to viewer: HandDrivenPeer, on transport: any TestPacketTransport, firstSequence: UInt16) async -> Int {
        for index in 0..<count {
            publisher.sendRTP(sequence: firstSequence &+ UInt16(index), over: publisherPath)
            if index % 10 == 9 { try? await Task.sleep(for: .milliseconds(2)) }
        }
        var received = 0
        while received < count, await viewer.receiveRTP(over: transport, timeout: .milliseconds(800)) != nil { received += 1 }
        return received
    }

    @Test("RFC 6544: a publisher reaches the server over ICE-TCP only; its SRTP reaches a WHEP subscriber over UDP and one over ICE-TCP")
    func publishOverTCP() async throws {
        let server = try LocalStageServer()
        try await server.start()
        defer { server.stop() }
        let stage = try await Self.stage(on: server)
        let (publisher, publisherTCP) = try await Self.tcpPublisher(server, stage)
        let whep = "/whep/\(stage.publisherId)"

        let udpViewer = try HandDrivenPeer(sendingSSRC: nil)
        let udpAnswer = try await udpViewer.negotiate(port: server.port, path: whep, token: stage.viewerToken)
        let udpCandidate = try #require(udpAnswer.candidate("udp", address: "127.0.0.1"))
        #expect(Int(udpCandidate.port) == server.mediaPort)
        let udp = try await UDPTransport.open(to: SocketAddress(ipAddress: "127.0.0.1", port: Int(udpCandidate.port)))
        #expect(await udpViewer.check(over: udp, answer: udpAnswer, useCandidate: true)?.type == .bindingSuccess)
        try await udpViewer.connectDTLS(over: udp, answer: udpAnswer)

        let tcpViewer = try HandDrivenPeer(sendingSSRC: nil)
        let tcpAnswer = try await tcpViewer.negotiate(port: server.port, path: whep, token: stage.viewerToken)
        let tcp = try await Self.connectTCP(try #require(tcpAnswer.candidate("tcp", address: "127.0.0.1")))
        #expect(await tcpViewer.check(over: tcp, answer: tcpAnswer, useCandidate: true)?.type == .bindingSuccess)
        try await tcpViewer.connectDTLS(over: tcp, answer: tcpAnswer)

        for sequence in UInt16(0)..<100 {
            publisher.sendRTP(sequence: sequence, over: publisherTCP)
            if sequence % 10 == 9 { try await Task.sleep(for: .milliseconds(2)) }
        }
        var overUDP: [UInt8] = [], overTCP: [UInt8] = []
        while overUDP.count < 100, let packet = await udpViewer.receiveRTP(over: udp, timeout: .seconds(1)) { overUDP.append(packet[7]) }
        while overTCP.count < 100, let packet = await tcpViewer.receiveRTP(over: tcp, timeout: .seconds(1)) { overTCP.append(packet[7]) }
        #expect(overUDP.count >= 95, "the UDP subscriber decrypted \(overUDP.count) of 100")
        #expect(overTCP.count == 100, "the ICE-TCP subscriber decrypted \(overTCP.count) of 100 (TCP loses nothing)")
        #expect(Set(overTCP) == Set(0..<100), "the payload markers of every packet arrive")
        await publisherTCP.close()
        await udp.close()
        await tcp.close()
    }

    @Test("nomination moves a subscriber's media between ICE-TCP and UDP at once; its selected TCP connection closing silences it")
    func mediaFollowsNomination() async throws {
        let server = try LocalStageServer()
        try await server.start()
        defer { server.stop() }
        let stage = try await Self.stage(on: server)
        let (publisher, publisherTCP) = try await Self.tcpPublisher(server, stage)

        let viewer = try HandDrivenPeer(sendingSSRC: nil)
        let answer = try await viewer.negotiate(port: server.port, path: "/whep/\(stage.publisherId)", token: stage.viewerToken)
        let tcp = try await Self.connectTCP(try #require(answer.candidate("tcp", address: "127.0.0.1")))
        let udpCandidate = try #require(answer.candidate("udp", address: "127.0.0.1"))
        let udp = try await UDPTransport.open(to: SocketAddress(ipAddress: "127.0.0.1", port: Int(udpCandidate.port)))
        #expect(await viewer.check(over: tcp, answer: answer, useCandidate: true)?.type == .bindingSuccess)
        try await viewer.connectDTLS(over: tcp, answer: answer)
        // A check without USE-CANDIDATE on UDP does not move a nominated pair.
        #expect(await viewer.check(over: udp, answer: answer, useCandidate: false)?.type == .bindingSuccess)
        #expect(await Self.relay(20, from: publisher, over: publisherTCP, to: viewer, on: tcp, firstSequence: 0) == 20)

        #expect(await viewer.check(over: udp, answer: answer, useCandidate: true)?.type == .bindingSuccess)
        #expect(await Self.relay(20, from: publisher, over: publisherTCP, to: viewer, on: udp, firstSequence: 100) >= 19,
                "after nominating UDP, media arrives over UDP")
        #expect(await viewer.receiveRTP(over: tcp, timeout: .milliseconds(200)) == nil, "and no longer over TCP")

        #expect(await viewer.check(over: tcp, answer: answer, useCandidate: true)?.type == .bindingSuccess)
        #expect(await Self.relay(20, from: publisher, over: publisherTCP, to: viewer, on: tcp, firstSequence: 200) == 20,
                "nominating TCP again brings media back to TCP")

        await tcp.close()
        try await Task.sleep(for: .milliseconds(200))
        #expect(await Self.relay(10, from: publisher, over: publisherTCP, to: viewer, on: udp, firstSequence: 300) == 0,
                "with its selected connection closed, the subscriber is sent nothing")
        #expect(await viewer.check(over: udp, answer: answer, useCandidate: true)?.type == .bindingSuccess)
        #expect(await Self.relay(20, from: publisher, over: publisherTCP, to: viewer, on: udp, firstSequence: 400) >= 19,
                "until it nominates another path")
        await publisherTCP.close()
        await udp.close()
    }

    @Test("garbage, an oversized frame, a refused check and silence past the deadline close ICE-TCP connections, each counted")
    func hostileConnectionsAreClosed() async throws {
        let server = try LocalStageServer(extraArguments: ["--ice-tcp-auth-timeout-ms", "400"])
        try await server.start()
        defer { server.stop() }
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: server.mediaTCPPort)
        let before = try await server.metrics()

        let garbage = try await FramedTCPTransport.connect(to: address)
        garbage.send([0xFF, 0x00, 0x01, 0x02])
        #expect(await garbage.inbox.waitClosed(), "a frame of no known kind closes the connection")

        let oversized = try await FramedTCPTransport.connect(to: address)
        oversized.sendRaw([0x10, 0x00] + [UInt8](repeating: 0x80, count: 64))
        #expect(await oversized.inbox.waitClosed(), "a 4096-byte frame length closes the connection at once")

        let stranger = try await FramedTCPTransport.connect(to: address)
        let peer = try HandDrivenPeer(sendingSSRC: nil)
        let unknown = HandDrivenPeer.Answer(sdp: "", ufrag: "nobody12", password: "0123456789abcdef01234567", fingerprint: [],
                                            candidates: [], ssrc: nil)
        #expect(await peer.check(over: stranger, answer: unknown, useCandidate: true)?.type == .bindingError, "401 for an unknown USERNAME")
        #expect(await stranger.inbox.waitClosed(), "and the unauthenticated connection is closed")

        let silent = try await FramedTCPTransport.connect(to: address)
        let opened = ContinuousClock.now
        #expect(await silent.inbox.waitClosed(timeout: .seconds(5)), "a connection that never authenticates is closed")
        #expect(ContinuousClock.now - opened >= .milliseconds(300), "after the deadline, not before")

        let after = try await server.metrics()
        for reason in ["tcp_garbage", "tcp_frame_too_large", "tcp_unauthenticated", "tcp_auth_timeout"] {
            #expect(Self.dropped(after, reason) == Self.dropped(before, reason) + 1, "\(reason) counted once")
        }
        #expect(await server.healthy())
    }

    @Test("connections not yet authenticated are capped: one over the cap is closed at accept and counted")
    func unauthenticatedCap() async throws {
        let server = try LocalStageServer(extraArguments: ["--ice-tcp-max-unauthenticated", "2"])
        try await server.start()
        defer { server.stop() }
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: server.mediaTCPPort)
        let first = try await FramedTCPTransport.connect(to: address)
        let second = try await FramedTCPTransport.connect(to: address)
        try await Task.sleep(for: .milliseconds(100))
        let third = try await FramedTCPTransport.connect(to: address)
        #expect(await third.inbox.waitClosed(timeout: .seconds(2)), "the third pending connection is refused")
        #expect(!first.inbox.isClosed && !second.inbox.isClosed, "the first two wait for their deadline")
        #expect(Self.dropped(try await server.metrics(), "tcp_connection_limit") == 1)

        // An authenticated connection no longer counts against the cap.
        let stage = try await Self.stage(on: server)
        let publisher = try HandDrivenPeer(sendingSSRC: 0x3333)
        let answer = try await publisher.negotiate(port: server.port, path: "/whip", token: stage.publisherToken)
        await first.close()
        try await Task.sleep(for: .milliseconds(100))
        let authenticated = try await FramedTCPTransport.connect(to: address)
        #expect(await publisher.check(over: authenticated, answer: answer, useCandidate: true)?.type == .bindingSuccess)
        let fourth = try await FramedTCPTransport.connect(to: address)
        try await Task.sleep(for: .milliseconds(200))
        #expect(!fourth.inbox.isClosed, "a pending slot was freed by authentication")
        await second.close()
        await fourth.close()
        await authenticated.close()
    }
}
