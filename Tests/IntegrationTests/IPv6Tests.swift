import Foundation
import NIOCore
import StageControl
import StageTransport
import Testing

/// A server on the default wildcard host serves IPv6 clients: HTTP (WHIP) on `[::1]`, and UDP
/// and ICE-TCP checks and DTLS on `::1`, while IPv4 keeps working.
@Suite(.serialized, .enabled(if: IPv6Support.isAvailable, "this machine has no IPv6"))
struct IPv6Tests {
    @Test("wildcard host: an IPv6-only client publishes over HTTP on [::1], checks and completes DTLS over UDP on ::1; ::1 is advertised for UDP and TCP")
    func ipv6Client() async throws {
        let server = try LocalStageServer(host: "0.0.0.0")
        try await server.start()
        defer { server.stop() }
        let health = try await RawHTTP.request("GET", ip: "::1", port: server.port, path: "/healthz")
        #expect(health.status == 200 && health.body == "ok\n")

        // The control plane and WHIP, all over IPv6.
        let api = ControlPlaneClient(endpoint: try #require(URL(string: "http://[::1]:\(server.port)")),
                                     accessKeyId: LocalStageServer.accessKeyId, secretAccessKey: LocalStageServer.secretAccessKey)
        let arn = try await api.createStage(name: "v6").arn
        let token = try await api.createParticipantToken(stageArn: arn, capabilities: ["PUBLISH"])
        let publisher = try HandDrivenPeer(sendingSSRC: 0x6666)
        let answer = try await publisher.negotiate(ip: "::1", port: server.port, path: "/whip", token: token.token ?? "")
        #expect(answer.candidates.first?.address == "127.0.0.1", "the public URL's host, an IP literal, is advertised first")
        #expect(!answer.candidates.contains { $0.address.lowercased().hasPrefix("fe80:") }, "no link-local candidates")
        let udpCandidate = try #require(answer.candidate("udp", address: "::1"))
        #expect(answer.candidate("tcp", address: "::1")?.port == UInt16(server.mediaTCPPort))
        #expect(answer.sdp.contains("c=IN IP4 127.0.0.1"))

        let udp = try await UDPTransport.open(to: SocketAddress(ipAddress: "::1", port: Int(udpCandidate.port)))
        let success = try #require(await publisher.check(over: udp, answer: answer, useCandidate: true))
        #expect(success.type == .bindingSuccess)
        #expect(try success.xorMappedAddress?.port == UInt16(udp.localAddress?.port ?? 0), "the reply came from the IPv6 socket to our IPv6 port")
        try await publisher.connectDTLS(over: udp, answer: answer)
        #expect(publisher.srtp != nil)
        await udp.close()

        // ICE-TCP on ::1 too.
        let tcpCandidate = try #require(answer.candidate("tcp", address: "::1"))
        let tcp = try await FramedTCPTransport.connect(to: SocketAddress(ipAddress: "::1", port: Int(tcpCandidate.port)))
        #expect(await publisher.check(over: tcp, answer: answer, useCandidate: true)?.type == .bindingSuccess)
        await tcp.close()

        // IPv4 still reaches the same HTTP port.
        #expect(await server.healthy())
    }
}
