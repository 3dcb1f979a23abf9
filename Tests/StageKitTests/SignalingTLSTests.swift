import Foundation
@testable import StageKit
import Testing

/// How the signaling socket is set up for ws:// and wss:// URLs, and how an unusable CA file is reported.
@Suite struct SignalingTLSTests {
    @Test func plainWebSocketHasNoTLS() throws {
        let (_, tls) = try SignalingChannel.configuration(url: "ws://127.0.0.1:8080/events/s", tls: .systemRoots)
        #expect(tls == nil)
    }

    @Test func secureWebSocketToAnIPAddressSendsNoAddressAsSNI() throws {
        let (configuration, tls) = try SignalingChannel.configuration(url: "wss://127.0.0.1:8443/events/s", tls: .systemRoots)
        #expect(tls != nil)
        #expect(configuration.sniHostname == "ip-address.invalid", "NIOSSL refuses an IP address as SNI (RFC 6066 §3)")
    }

    @Test func secureWebSocketToANameUsesTheName() throws {
        let (configuration, tls) = try SignalingChannel.configuration(url: "wss://stage.example.com/events/s", tls: .systemRoots)
        #expect(tls != nil)
        #expect(configuration.sniHostname == nil, "WSClient sends the URL's host")
    }

    @Test(arguments: ["127.0.0.1", "::1", "[::1]"]) func addressesAreRecognized(host: String) {
        #expect(StageTLSConfiguration.isIPAddress(host))
    }

    @Test(arguments: ["localhost", "stage.example.com", "127.0.0.1."]) func namesAreNotAddresses(host: String) {
        #expect(!StageTLSConfiguration.isIPAddress(host))
    }

    @MainActor @Test func anUnreadableCAFileIsNamed() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-ca-\(UUID().uuidString).pem").path
        #expect {
            try StageTLSConfiguration(caFile: path).validate()
        } throws: { error in
            guard let error = error as? StageTLSError else { return false }
            return error.code == .caFileUnusable && error.reason.contains(path)
        }
        #expect {
            _ = try Stage(token: "not.a.token", strategy: NoStrategy(), media: false, tls: StageTLSConfiguration(caFile: path))
        } throws: { error in
            (error as? StageError)?.code == .connectionFailed && "\(error)".contains(path)
        }
    }

    @Test func aFileWithoutCertificatesIsRefused() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("empty-ca-\(UUID().uuidString).pem")
        try Data("not a certificate\n".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: StageTLSError.self) { try StageTLSConfiguration(caFile: url.path).validate() }
    }
}

@MainActor private final class NoStrategy: StageStrategy {
    func stage(_ stage: Stage, streamsToPublishForParticipant participant: ParticipantInfo) -> [LocalStageStream] { [] }
    func stage(_ stage: Stage, shouldPublishParticipant participant: ParticipantInfo) -> Bool { false }
    func stage(_ stage: Stage, shouldSubscribeToParticipant participant: ParticipantInfo) -> SubscribeType { .none }
}
