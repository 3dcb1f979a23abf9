import NIOCore
import StageControl
@testable import StageTransport
import StageWire
import Testing

/// Issue 11: every `MediaDropReason` is made to happen against a real server process (real UDP
/// and TCP sockets, real DTLS and SRTP) and seen to grow in its `/metrics`. The switch in
/// `trigger` has no default: a new reason does not compile until it has a trigger here.
@Suite(.serialized)
struct MediaDropWalkTests {
    /// How a reason is made to happen.
    enum Trigger {
        /// Against the server: the steps ran; its counter must grow.
        case server
        /// Not reachable from outside a server; made to happen by the named unit test next to the
        /// component, which checks its effect.
        case unitTest(String, why: String)
        /// Of a pipe between a stage's routers, whose ends listen on loopback ports of their
        /// own once a stage outgrows a worker: made to happen by the named unit test, and
        /// `pipe_unknown_source` on a real server by Tests/interop/test_media_pipe.py. Not
        /// counted against the cap of unit-tested reasons.
        case pipe(String)
    }

    @Test("every MediaDropReason happens against a real server and is counted in /metrics")
    func everyReasonIsCounted() async throws {
        let walk = try await DropWalk.start()
        defer { walk.stop() }
        var unitTested: [String] = []
        for reason in MediaDropReason.allCases {
            let before = DropWalk.dropped(try await walk.metrics(for: reason), reason)
            switch try await walk.trigger(reason) {
            case .server:
                let grew = try await walk.waitForGrowth(of: reason, above: before)
                #expect(grew, "\(reason.rawValue) did not grow")
            case .unitTest(let test, _):
                unitTested.append("\(reason.rawValue) → \(test)")
            case .pipe(let test):
                print("pipe:", reason.rawValue, "→", test)
            }
        }
        print("unit-tested reasons:", unitTested)
        #expect(unitTested.count <= 7, "most reasons are reached on a real server")
        // What the walk forwarded and asked for shows in the other media counters.
        let metrics = try await walk.server.metrics()
        for series in ["proscenium_media_forwarded_packets_total{kind=\"video\"}", "proscenium_media_forwarded_bytes_total{kind=\"video\"}",
                       "proscenium_media_nacks_received_total", "proscenium_media_plis_received_total", "proscenium_media_plis_sent_total",
                       "proscenium_media_keyframe_requests_total{reason=\"new_consumer\"}"] {
            let value = metrics.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
            #expect((value ?? 0) > 0, "\(series) counted")
        }
    }
}

/// The servers, stage and peers the walk uses.
final class DropWalk: @unchecked Sendable {
    let server: LocalStageServer
    /// Servers with caps low enough to hit (started when their reason comes).
    var limited: [MediaDropReason: LocalStageServer] = [:]
    let arn: String
    var users = 0

    private init(server: LocalStageServer, arn: String) {
        self.server = server
        self.arn = arn
    }

    static func start() async throws -> DropWalk {
        let server = try LocalStageServer(extraArguments: ["--ice-tcp-auth-timeout-ms", "1500", "--ice-tcp-max-per-peer", "2",
                                                           "--ice-tcp-unselected-timeout-ms", "1000"])
        try await server.start()
        let arn = try await server.api.createStage(name: "drop-walk").arn
        return DropWalk(server: server, arn: arn)
    }

    func stop() {
        server.stop()
        for other in limited.values { other.stop() }
    }

    func metrics(for reason: MediaDropReason) async throws -> String {
        try await (limited[reason] ?? server).metrics()
    }

    static func dropped(_ metrics: String, _ reason: MediaDropReason) -> Double {
        ICETCPTests.dropped(metrics, reason.rawValue)
    }

    /// Polls `/metrics` until the counter is above `before` (true), or 10 s pass (false).
    func waitForGrowth(of reason: MediaDropReason, above before: Double) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if Self.dropped(try await metrics(for: reason), reason) > before { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    // MARK: Peers

    var mediaAddress: SocketAddress { get throws { try SocketAddress(ipAddress: "127.0.0.1", port: server.mediaPort) } }

    func token(_ capability: String) async throws -> (token: String, participantId: String) {
        users += 1
        let made = try await server.api.createParticipantToken(stageArn: arn, userId: "walk\(users)", capabilities: [capability])
        return (made.token ?? "", made.participantId ?? "")
    }

    /// A publisher over UDP: negotiated, its path selected; DTLS done unless `connect` is false.
    func publisher(ssrc: UInt32 = 0x5151, connect: Bool = true, configure: (HandDrivenPeer) -> Void = { _ in })
        async throws -> (peer: HandDrivenPeer, udp: UDPTransport, answer: HandDrivenPeer.Answer, participantId: String) {
        let (token, participantId) = try await token("PUBLISH")
        let peer = try HandDrivenPeer(sendingSSRC: ssrc)
        configure(peer)
        let answer = try await peer.negotiate(port: server.port, path: "/whip", token: token)
        let udp = try await UDPTransport.open(to: try mediaAddress)
        #expect(await peer.check(over: udp, answer: answer, useCandidate: true)?.type == .bindingSuccess)
        if connect { try await peer.connectDTLS(over: udp, answer: answer) }
        return (peer, udp, answer, participantId)
    }

    /// A WHEP viewer of `publisherId`, over `transport` (UDP by default); DTLS done unless `connect` is false.
    func viewer(of publisherId: String, connect: Bool = true, tcp: Bool = false) async throws
        -> (peer: HandDrivenPeer, transport: any TestPacketTransport, answer: HandDrivenPeer.Answer) {
        let (token, _) = try await token("SUBSCRIBE")
        let peer = try HandDrivenPeer(sendingSSRC: nil)
        let answer = try await peer.negotiate(port: server.port, path: "/whep/\(publisherId)", token: token)
        let transport: any TestPacketTransport = tcp
            ? try await ICETCPTests.connectTCP(try #require(answer.candidate("tcp", address: "127.0.0.1")))
            : try await UDPTransport.open(to: try mediaAddress)
        #expect(await peer.check(over: transport, answer: answer, useCandidate: true)?.type == .bindingSuccess)
        if connect { try await peer.connectDTLS(over: transport, answer: answer) }
        return (peer, transport, answer)
    }

    func stranger() async throws -> UDPTransport { try await UDPTransport.open(to: try mediaAddress) }

    static let nobody = HandDrivenPeer.Answer(sdp: "", ufrag: "nobody12", password: "0123456789abcdef01234567", fingerprint: [],
                                              candidates: [], ssrc: nil)

    /// A server of its own with `arguments`, for `reason`.
    func limitedServer(_ reason: MediaDropReason, _ arguments: [String]) async throws -> LocalStageServer {
        let other = try LocalStageServer(extraArguments: arguments)
        try await other.start()
        limited[reason] = other
        return other
    }

    // MARK: Triggers

    /// Makes `reason` happen once (or more).
    func trigger(_ reason: MediaDropReason) async throws -> MediaDropWalkTests.Trigger {
        switch reason {
        case .unknownKind:
            try await stranger().send([0xF0, 1, 2, 3])
        case .malformedSTUN:
            try await stranger().send([0x00, 0x01, 0x00, 0x08, 0x21, 0x12])
        case .stunNotRequest:
            try await stranger().send(STUNMessageBuilder(type: .bindingIndication).finish(fingerprint: true))
        case .stunUnknownUsername:
            _ = await (try HandDrivenPeer(sendingSSRC: nil)).check(over: try await stranger(), answer: Self.nobody, useCandidate: true)
        case .stunBadIntegrity:
            let (token, _) = try await token("PUBLISH")
            let peer = try HandDrivenPeer(sendingSSRC: 0x77)
            let answer = try await peer.negotiate(port: server.port, path: "/whip", token: token)
            try await stranger().send(peer.checkRequest(answer: answer, useCandidate: true, password: "wrong-password-wrong-pass"))
        case .stunBadFingerprint:
            var request = try HandDrivenPeer(sendingSSRC: nil).checkRequest(answer: Self.nobody, useCandidate: false)
            request[request.count - 1] ^= 0xFF
            try await stranger().send(request)
        case .unknownAddress:
            try await stranger().send(HandDrivenPeer.rtp(sequence: 1, ssrc: 9))
        case .dtlsFailed:
            // The certificate offered is not the one DTLS presents.
            let (token, _) = try await token("PUBLISH")
            let offered = try HandDrivenPeer(sendingSSRC: 0x78)
            let answer = try await offered.negotiate(port: server.port, path: "/whip", token: token)
            let impostor = try HandDrivenPeer(sendingSSRC: 0x78)
            let udp = try await stranger()
            _ = await impostor.check(over: udp, answer: answer, useCandidate: true)
            try? await impostor.connectDTLS(over: udp, answer: answer)
        case .notConnected:
            let publisher = try await publisher(connect: false)
            publisher.udp.send(HandDrivenPeer.rtp(sequence: 1, ssrc: 0x5151))
        case .srtpAuthentication:
            let publisher = try await publisher()
            publisher.udp.send(HandDrivenPeer.rtp(sequence: 1, ssrc: 0x5151) + [UInt8](repeating: 0x55, count: 10))
        case .srtpReplay:
            let publisher = try await publisher()
            let packet = try #require(publisher.peer.protect(HandDrivenPeer.rtp(sequence: 1, ssrc: 0x5151)))
            publisher.udp.send(packet)
            publisher.udp.send(packet)
        case .srtpOther:
            // Shorter than an RTP header: libsrtp refuses it before authenticating.
            try await publisher().udp.send([0x80, 96, 0, 1])
        case .malformedRTP:
            // P set, and a padding count of 0 (RFC 3550 §5.1 wants at least 1).
            let publisher = try await publisher()
            publisher.udp.send(try #require(publisher.peer.protect(HandDrivenPeer.rtp(first: 0xA0, sequence: 1, ssrc: 0x5151) + [0])))
        case .malformedRTCP:
            // A Sender Report whose length field runs past the packet.
            let publisher = try await publisher()
            publisher.udp.send(try #require(publisher.peer.protect([0x80, 200, 0, 40, 0, 0, 0, 1, 0, 0, 0, 0], rtcp: true)))
        case .unknownSSRC:
            let publisher = try await publisher()
            publisher.udp.send(try #require(publisher.peer.protect(HandDrivenPeer.rtp(payloadType: 100, sequence: 1, ssrc: 0xDEAD))))
        case .unknownRID, .layerNotSelected:
            let publisher = try await simulcastPublisher()
            if reason == .layerNotSelected {
                _ = try await viewer(of: publisher.participantId)
            }
            let rid: [UInt8] = reason == .unknownRID ? Array("zz".utf8) : Array("l".utf8)
            for sequence in UInt16(1)...3 {
                let packet = HandDrivenPeer.rtp(first: 0x90, sequence: sequence, ssrc: 0x6000,
                                                extensionBlock: HandDrivenPeer.extensionBlock(id: 4, value: rid))
                publisher.udp.send(try #require(publisher.peer.protect(packet)))
            }
        case .retransmissionNotForwarded:
            let publisher = try await simulcastPublisher()
            publisher.udp.send(try #require(publisher.peer.protect(HandDrivenPeer.rtp(payloadType: 97, sequence: 1, ssrc: 0x6001))))
        case .stunAddressTaken:
            // A second peer nominates the UDP address that is the first's selected path.
            let first = try await publisher()
            let (token, _) = try await token("PUBLISH")
            let second = try HandDrivenPeer(sendingSSRC: 0x79)
            let answer = try await second.negotiate(port: server.port, path: "/whip", token: token)
            first.udp.send(second.checkRequest(answer: answer, useCandidate: true))
        case .stunReplayedTransaction:
            let (token, _) = try await token("PUBLISH")
            let peer = try HandDrivenPeer(sendingSSRC: 0x7A)
            let answer = try await peer.negotiate(port: server.port, path: "/whip", token: token)
            let request = peer.checkRequest(answer: answer, useCandidate: false)
            let first = try await stranger()
            first.send(request)
            _ = await first.inbox.next()
            try await stranger().send(request)
        case .noRemoteAddress:
            return .unitTest("StageTransportTests.MediaDropInProcessTests.acceptWithoutRemoteAddress",
                             why: "an accepted TCP socket always has a peer address, unless it was reset before getpeername")
        case .tcpConnectionLimit, .tcpSourceLimit:
            let flag = reason == .tcpConnectionLimit ? "--ice-tcp-max-unauthenticated" : "--ice-tcp-max-unauthenticated-per-source"
            let other = try await limitedServer(reason, [flag, "2"])
            let address = try SocketAddress(ipAddress: "127.0.0.1", port: other.mediaTCPPort)
            var connections: [FramedTCPTransport] = []
            for _ in 0..<3 { connections.append(try await FramedTCPTransport.connect(to: address)) }
            _ = await connections[2].inbox.waitClosed(timeout: .seconds(5))
            for connection in connections { await connection.close() }
        case .tcpPeerLimit, .tcpNotSelected:
            let stage = ICETCPTests.Stage(publisherToken: try await token("PUBLISH").token, publisherId: "", viewerToken: "")
            let (publisher, selected, answer) = try await ICETCPTests.tcpPublisherAndAnswer(server, stage)
            let candidate = try #require(answer.candidate("tcp", address: "127.0.0.1"))
            let spare = try await ICETCPTests.connectTCP(candidate)
            _ = await publisher.check(over: spare, answer: answer, useCandidate: false)
            let newest = try await ICETCPTests.connectTCP(candidate)
            _ = await publisher.check(over: newest, answer: answer, useCandidate: false)
            _ = await newest.inbox.waitClosed(timeout: .seconds(5))
            await selected.close()
        case .tcpPeerClosed:
            let (token, _) = try await token("PUBLISH")
            let stage = ICETCPTests.Stage(publisherToken: token, publisherId: "", viewerToken: "")
            let (_, tcp, answer) = try await ICETCPTests.tcpPublisherAndAnswer(server, stage)
            _ = try await RawHTTP.request("DELETE", ip: "127.0.0.1", port: server.port, path: try #require(answer.location),
                                          headers: ["Authorization": "Bearer \(token)"])
            _ = await tcp.inbox.waitClosed()
        case .tcpAuthTimeout:
            let silent = try await FramedTCPTransport.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: server.mediaTCPPort))
            _ = await silent.inbox.waitClosed(timeout: .seconds(5))
        case .tcpUnauthenticated:
            let connection = try await FramedTCPTransport.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: server.mediaTCPPort))
            _ = await (try HandDrivenPeer(sendingSSRC: nil)).check(over: connection, answer: Self.nobody, useCandidate: true)
            _ = await connection.inbox.waitClosed()
        case .tcpOtherPeer:
            let (token, _) = try await token("PUBLISH")
            let stage = ICETCPTests.Stage(publisherToken: token, publisherId: "", viewerToken: "")
            let (_, tcp, _) = try await ICETCPTests.tcpPublisherAndAnswer(server, stage)
            let (otherToken, _) = try await self.token("PUBLISH")
            let other = try HandDrivenPeer(sendingSSRC: 0x7B)
            let otherAnswer = try await other.negotiate(port: server.port, path: "/whip", token: otherToken)
            tcp.send(other.checkRequest(answer: otherAnswer, useCandidate: true))
        case .tcpFrameTooLarge:
            let connection = try await FramedTCPTransport.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: server.mediaTCPPort))
            connection.sendRaw([0x10, 0x00] + [UInt8](repeating: 0x80, count: 64))
            _ = await connection.inbox.waitClosed()
        case .tcpGarbage:
            let connection = try await FramedTCPTransport.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: server.mediaTCPPort))
            connection.send([0xFF, 0x00, 0x01, 0x02])
            _ = await connection.inbox.waitClosed()
        case .tcpBackpressure:
            // A viewer over ICE-TCP that stops reading, and a publisher that keeps sending.
            let publisher = try await publisher(ssrc: 0x5252)
            let viewer = try await viewer(of: publisher.participantId, tcp: true)
            let tcp = try #require(viewer.transport as? FramedTCPTransport)
            try await tcp.channel.setOption(.autoRead, value: false).get()
            let before = Self.dropped(try await server.metrics(), .tcpBackpressure)
            var sequence: UInt16 = 0
            while sequence < 60000, Self.dropped(try await server.metrics(), .tcpBackpressure) == before {
                for _ in 0..<500 {
                    sequence &+= 1
                    publisher.peer.sendRTP(sequence: sequence, over: publisher.udp)
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            await tcp.close()
        case .pacerQueueFull:
            return .unitTest("StageServerTests.SubscriberPacerTests.fullQueueDrops",
                             why: "the pacer sends what it holds within 250 ms whatever the estimate (over 32 Mbps once it holds 1 MB); only a media loop that stalls fills it")
        case .repairOverBudget:
            return .unitTest("StageServerTests.SubscriberPacerTests.repairsAreBounded",
                             why: "it needs a subscriber with an estimate whose NACKs ask for more than a burst beyond it at once; the pacer is unit-tested on a real event loop")
        case .tcpSendTooLarge:
            return .unitTest("StageTransportTests.MediaDropInProcessTests.sendTooLarge",
                             why: "every packet the server sends is shorter than 2,048 bytes plus an SRTP trailer")
        case .duplicate:
            // An RTX packet (RFC 4588) repeating one already received, as a browser's padding probe does
            // (an SRTP replay of the packet itself is dropped before: srtp_replay).
            let publisher = try await publisher(ssrc: 0x5757) { peer in
                peer.payloadTypes = "96 97"
                peer.extraLines = ["a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96", "a=ssrc-group:FID 22359 22360", "a=ssrc:22360 cname:walk"]
            }
            publisher.peer.sendRTP(sequence: 1, over: publisher.udp)
            let probe = HandDrivenPeer.rtp(payloadType: 97, sequence: 1, ssrc: 0x5758, payload: [0, 1, 0x10] + [UInt8](repeating: 0xAB, count: 40))
            publisher.udp.send(try #require(publisher.peer.protect(probe)))
        case .muted:
            return .unitTest("StageSFUTests.ForwardingObserverTests.dropIsReported",
                             why: "mute comes over signaling; the producer reports it, and MediaMetrics maps every ForwardingDrop")
        case .consumerPaused:
            let publisher = try await publisher(ssrc: 0x5353)
            _ = try await viewer(of: publisher.participantId, connect: false)
            publisher.peer.sendRTP(sequence: 1, over: publisher.udp)
        case .nackNotCached:
            let publisher = try await publisher(ssrc: 0x5454)
            let viewer = try await viewer(of: publisher.participantId)
            let media = try #require(viewer.answer.ssrc)
            viewer.transport.send(try #require(viewer.peer.protect(HandDrivenPeer.nack(media: media, sequence: 999), rtcp: true)))
        case .keyframeRequestThrottled:
            let publisher = try await publisher(ssrc: 0x5555)
            publisher.peer.sendRTP(sequence: 1, over: publisher.udp)   // the producer learns its SSRC
            let viewer = try await viewer(of: publisher.participantId)
            let media = try #require(viewer.answer.ssrc)
            for _ in 0..<2 { viewer.transport.send(try #require(viewer.peer.protect(HandDrivenPeer.pli(media: media), rtcp: true))) }
        case .sendNotReady:
            // A viewer whose only path, an ICE-TCP connection, closed: packets for it have nowhere to go.
            let publisher = try await publisher(ssrc: 0x5656)
            let viewer = try await viewer(of: publisher.participantId, tcp: true)
            await viewer.transport.close()
            // Until the server has seen the close: keep sending, a few packets at a time.
            let before = Self.dropped(try await server.metrics(), .sendNotReady)
            var sequence: UInt16 = 0
            while sequence < 2000, Self.dropped(try await server.metrics(), .sendNotReady) == before {
                for _ in 0..<10 {
                    sequence &+= 1
                    publisher.peer.sendRTP(sequence: sequence, over: publisher.udp)
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        case .srtpProtectFailed:
            return .unitTest("StageTransportTests.MediaDropInProcessTests.protectFailure",
                             why: "the server protects only packets whose header libsrtp already read on the way in")
        case .udpSendFailed:
            return .unitTest("StageTransportTests.MediaDropInProcessTests.refusedDatagramIsSkipped",
                             why: "a peer's address is one it sent from, and loopback refuses no datagram to it")
        case .pipeUnknownSource, .pipeAuthentication, .pipeReplay, .pipeMalformed:
            return .pipe("StageTransportTests.PipeTransportTests.refusals")
        }
        return .server
    }

    /// A publisher of two simulcast layers (rids `l`, `h`, RFC 8852 rid extension id 4) with RTX (97).
    func simulcastPublisher() async throws -> (peer: HandDrivenPeer, udp: UDPTransport, answer: HandDrivenPeer.Answer, participantId: String) {
        try await publisher(ssrc: 0x5F5F) { peer in
            peer.payloadTypes = "96 97"
            peer.extraLines = ["a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96",
                               "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id",
                               "a=rid:l send", "a=rid:h send", "a=simulcast:send l;h"]
        }
    }
}
