import Testing
@testable import StageTransport

/// Real OpenSSL DTLS between two in-memory endpoints, then real libsrtp2 with the exported keys.
struct DTLSSRTPTests {
    /// Runs the handshake by passing datagrams back and forth until both sides settle.
    static func handshake(_ client: DTLSEndpoint, _ server: DTLSEndpoint) {
        var toServer = client.start()
        var toClient: [[UInt8]] = []
        for _ in 0..<20 {
            for datagram in toServer { toClient += datagram.withUnsafeBytes { server.receive($0) } }
            toServer = []
            for datagram in toClient { toServer += datagram.withUnsafeBytes { client.receive($0) } }
            toClient = []
            if toServer.isEmpty, client.state != .handshaking, server.state != .handshaking { break }
        }
    }

    func pair(clientExpects: [UInt8]? = nil) throws -> (DTLSEndpoint, DTLSEndpoint) {
        let clientContext = try DTLSContext(certificate: DTLSCertificate())
        let serverContext = try DTLSContext(certificate: DTLSCertificate())
        let client = try DTLSEndpoint(role: .client, context: clientContext,
                                      remoteFingerprint: clientExpects ?? serverContext.certificate.fingerprint)
        let server = try DTLSEndpoint(role: .server, context: serverContext, remoteFingerprint: clientContext.certificate.fingerprint)
        return (client, server)
    }

    @Test("RFC 5764 §4.2: both ends export mirrored SRTP keys; GCM is chosen first")
    func handshakeExportsMirroredKeys() throws {
        let (client, server) = try pair()
        Self.handshake(client, server)
        guard case .connected(let clientKeys) = client.state, case .connected(let serverKeys) = server.state else {
            Issue.record("handshake did not complete: client \(client.state), server \(server.state)")
            return
        }
        #expect(clientKeys.profile == .aeadAes128Gcm)
        #expect(clientKeys.local == serverKeys.remote)
        #expect(clientKeys.remote == serverKeys.local)
        #expect(clientKeys.local.count == 28)
        #expect(clientKeys.local != clientKeys.remote)
    }

    @Test("RFC 8122 §5: a certificate that does not match the SDP fingerprint fails the handshake")
    func fingerprintMismatchFails() throws {
        let (client, server) = try pair(clientExpects: [UInt8](repeating: 0xAB, count: 32))
        Self.handshake(client, server)
        #expect(client.state == .failed(.fingerprintMismatch))
    }

    @Test("SRTP round trip with the exported keys; tampering and replays are refused")
    func srtpRoundTrip() throws {
        let (client, server) = try pair()
        Self.handshake(client, server)
        guard case .connected(let clientKeys) = client.state, case .connected(let serverKeys) = server.state else {
            Issue.record("no handshake")
            return
        }
        let sender = try SRTPSession(clientKeys), receiver = try SRTPSession(serverKeys)
        // RTP header: V=2, PT 96, seq 1, ts 1000, SSRC 0x11223344, then 100 bytes of payload.
        let rtp: [UInt8] = [0x80, 0x60, 0x00, 0x01, 0x00, 0x00, 0x03, 0xE8, 0x11, 0x22, 0x33, 0x44] + [UInt8](repeating: 0x5A, count: 100)
        var buffer = rtp + [UInt8](repeating: 0, count: SRTPSession.maxTrailer)
        let protectedLength = try buffer.withUnsafeMutableBytes { try sender.protectRTP($0, length: rtp.count) }
        #expect(protectedLength == rtp.count + 16)
        let wire = Array(buffer.prefix(protectedLength))
        #expect(Array(wire.prefix(12)) == Array(rtp.prefix(12)))
        #expect(wire[12...] != rtp[12...])

        var copy = wire
        let plainLength = try copy.withUnsafeMutableBytes { try receiver.unprotectRTP($0, length: wire.count) }
        #expect(Array(copy.prefix(plainLength)) == rtp)

        var replay = wire
        #expect(throws: SRTPSession.Failure.replay) {
            try replay.withUnsafeMutableBytes { try receiver.unprotectRTP($0, length: wire.count) }
        }
        var tampered = wire
        tampered[3] = 0x02   // another sequence number, same tag
        tampered[20] ^= 0xFF
        #expect(throws: SRTPSession.Failure.authentication) {
            try tampered.withUnsafeMutableBytes { try receiver.unprotectRTP($0, length: wire.count) }
        }
    }

    @Test("RFC 6347 §4.1: records are packed into datagrams no larger than the MTU")
    func recordsArePackedWithinMTU() {
        func record(_ length: Int) -> [UInt8] { [22, 0xFE, 0xFD] + [UInt8](repeating: 0, count: 8) + [UInt8(length >> 8), UInt8(length & 0xFF)] + [UInt8](repeating: 1, count: length) }
        let datagrams = DTLSRecords.pack(record(500) + record(500) + record(500), mtu: 1200)
        #expect(datagrams.map(\.count) == [1026, 513])
    }
}
