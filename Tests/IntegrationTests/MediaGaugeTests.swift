import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOPosix
import Testing
import StageControl
import StageTransport

/// `proscenium_media_peers{role}` and `proscenium_media_consumers` follow the WHIP and WHEP
/// sessions a real server holds: what `stage-bench soak` compares with its live clients.
@Suite(.serialized)
struct MediaGaugeTests {
    /// (publish peers, subscribe peers, consumers) from /metrics.
    func gauges(_ server: LocalStageServer) async throws -> [Int] {
        let text = try await server.metrics()
        func value(_ series: String) -> Int {
            text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { $0.split(separator: " ").last }
                .flatMap { Double($0) }.map { Int($0) } ?? -1
        }
        return [value("proscenium_media_peers{role=\"publish\"}"), value("proscenium_media_peers{role=\"subscribe\"}"),
                value("proscenium_media_consumers")]
    }

    /// Polls /metrics until the gauges read `expected` (bounded: 200 tries).
    func waitFor(_ expected: [Int], _ server: LocalStageServer) async throws -> [Int] {
        var seen = try await gauges(server)
        for _ in 0..<200 where seen != expected {
            try await Task.sleep(for: .milliseconds(50))
            seen = try await gauges(server)
        }
        return seen
    }

    @Test("peer and consumer gauges count WHIP and WHEP sessions, and drop when they close")
    func gaugesFollowSessions() async throws {
        let server = try LocalStageServer()
        try await server.start()
        defer { server.stop() }
        let stageArn = try await server.api.createStage(name: "gauges").arn
        let publisherToken = try await server.api.createParticipantToken(stageArn: stageArn, capabilities: ["PUBLISH"])
        let viewerToken = try await server.api.createParticipantToken(stageArn: stageArn, capabilities: ["SUBSCRIBE"])
        let context = try DTLSContext(certificate: DTLSCertificate())
        let loop = MultiThreadedEventLoopGroup.singleton.next()

        let publisher = ClientPeerConnection(tracks: [.init(mid: "0", kind: .video, direction: .sendonly, rids: ["q", "h", "f"])],
                                             context: context, eventLoop: loop)
        try await publisher.open(host: "127.0.0.1")
        try await publisher.connect(answer: try await postSDPOffer(server.baseURL.appendingPathComponent("whip"), publisher.offer(),
                                                           token: publisherToken.token ?? ""))
        let viewer = ClientPeerConnection(tracks: [.init(mid: "0", kind: .video, direction: .recvonly)], context: context, eventLoop: loop)
        try await viewer.open(host: "127.0.0.1")
        let whep = server.baseURL.appendingPathComponent("whep/\(publisherToken.participantId ?? "")")
        try await viewer.connect(answer: try await postSDPOffer(whep, viewer.offer(), token: viewerToken.token ?? ""))
        #expect(try await waitFor([1, 1, 1], server) == [1, 1, 1])

        await viewer.close()   // close_notify: the server frees the session at once
        #expect(try await waitFor([1, 0, 0], server) == [1, 0, 0])
        await publisher.close()
        #expect(try await waitFor([0, 0, 0], server) == [0, 0, 0])
    }

    @Test("after SIGKILL, a restart on the same ports and data keeps every acknowledged stage")
    func killKeepsAcknowledgedWrites() async throws {
        let server = try LocalStageServer()
        try await server.start()
        defer { server.stop() }
        var arns: [String] = []
        for index in 0..<20 { arns.append(try await server.api.createStage(name: "kill-\(index)").arn) }
        let mediaPort = server.mediaPort
        server.kill()
        #expect(server.processIdentifier == nil)
        try await server.start(keepingPorts: true)
        #expect(server.mediaPort == mediaPort)
        for arn in arns { #expect(try await server.api.getStage(arn: arn).arn == arn) }
    }
}
