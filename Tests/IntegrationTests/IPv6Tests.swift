import Foundation
import NIOCore
import NIOPosix
import StageControl
import Testing

/// A server on the default wildcard host serves IPv6 clients: HTTP (WHIP) on `[::1]`, and UDP
/// and ICE-TCP checks and DTLS on `::1`, while IPv4 keeps working.
///
/// These tests need the IPv6 loopback address. A machine without it makes them fail, saying
/// so (the project never skips a test silently): binding `[::]` can work where `::1` does not
/// (e.g. `net.ipv6.conf.lo.disable_ipv6=1`), so `::1` itself is what is probed.
@Suite(.serialized)
struct IPv6Tests {
    /// Why `::1` cannot be used here (a UDP socket bound and a TCP listener on it), nil when it can.
    static func ipv6LoopbackProblem() async -> String? {
        do {
            let udp = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "::1", port: 0).get()
            try await udp.close()
            let tcp = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "::1", port: 0).get()
            try await tcp.close()
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("wildcard host: an IPv6-only client publishes over HTTP on [::1], checks and completes DTLS over UDP on ::1; ::1 is advertised for UDP and TCP")
    func ipv6Client() async throws {
        if let problem = await Self.ipv6LoopbackProblem() {
            Issue.record("this machine's IPv6 loopback ::1 is unusable (\(problem)): IPv6 serving cannot be tested here")
            return
        }
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
        // No --public-url: loopback is advertised, but after every address a remote client can reach.
        let first = try #require(answer.candidates.first)
        let loopback = ["127.0.0.1", "::1"]
        if answer.candidates.contains(where: { !loopback.contains($0.address) }) {
            #expect(!loopback.contains(first.address), "a remote address ranks first, not the default public URL's 127.0.0.1")
        }
        #expect(!answer.candidates.contains { $0.address.lowercased().hasPrefix("fe80:") }, "no link-local candidates")
        let udpCandidate = try #require(answer.candidate("udp", address: "::1"))
        #expect(answer.candidate("tcp", address: "::1")?.port == UInt16(server.mediaTCPPort))
        #expect(answer.sdp.contains("c=IN \(first.address.contains(":") ? "IP6" : "IP4") \(first.address)"), "c= names the first candidate")

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
