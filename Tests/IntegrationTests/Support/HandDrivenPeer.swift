import NIOCore
@testable import StageTransport
import StageWire

/// A WebRTC peer a test drives one step at a time over any `TestPacketTransport`: an offer
/// (one VP8 section, sending or receiving), a controlling ICE check, DTLS as client, SRTP.
/// So a test can choose the path (UDP, IPv6, ICE-TCP), switch it, and see every packet.
final class HandDrivenPeer: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// What the server's answer says about reaching it.
    struct Answer {
        var sdp: String
        var ufrag: String
        var password: String
        var fingerprint: [UInt8]
        var candidates: [SDPCandidate]
        /// The SSRC the server sends from (WHEP), if any.
        var ssrc: UInt32?
        /// The resource to DELETE (the `Location` of the answer).
        var location: String?

        func candidate(_ transport: String, address: String) -> SDPCandidate? {
            candidates.first { $0.transport.lowercased() == transport && $0.address == address }
        }
    }

    let credentials = ICECredentials.random()
    let context: DTLSContext
    /// The SSRC we send from; nil for a receive-only peer.
    let sendingSSRC: UInt32?
    private(set) var srtp: SRTPSession?
    /// Payload types on the offer's m-line, and lines added to its section (simulcast rids, RTX).
    var payloadTypes = "96"
    var extraLines: [String] = []
    private let tieBreaker = UInt64.random(in: 0...UInt64.max)

    init(sendingSSRC: UInt32?) throws {
        context = try DTLSContext(certificate: DTLSCertificate())
        self.sendingSSRC = sendingSSRC
    }

    /// An offer with one VP8 section, `setup:active` (we are the DTLS client), no candidates.
    func offer() -> String {
        var lines = ["v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0", "a=msid-semantic: WMS *",
                     "m=video 9 UDP/TLS/RTP/SAVPF \(payloadTypes)", "c=IN IP4 0.0.0.0", "a=mid:0",
                     "a=ice-ufrag:\(credentials.ufrag)", "a=ice-pwd:\(credentials.password)",
                     "a=fingerprint:sha-256 \(context.certificate.sdpFingerprint)", "a=setup:active",
                     sendingSSRC == nil ? "a=recvonly" : "a=sendonly", "a=rtcp-mux", "a=rtpmap:96 VP8/90000"]
        if let sendingSSRC { lines += ["a=msid:hand video", "a=ssrc:\(sendingSSRC) cname:hand"] }
        lines += extraLines
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// POSTs the offer (WHIP or WHEP) with a participant token to `ip`:`port` and reads the answer.
    func negotiate(ip: String = "127.0.0.1", port: Int, path: String, token: String) async throws -> Answer {
        let response = try await RawHTTP.request("POST", ip: ip, port: port, path: path, headers: [
            "Content-Type": "application/sdp", "Authorization": "Bearer \(token)",
        ], body: offer())
        guard response.status == 201 else { throw Failure("POST \(path) on \(ip): \(response.status) \(response.body)") }
        var answer = try Self.parse(answer: response.body)
        answer.location = response.headers["location"]
        return answer
    }

    static func parse(answer sdp: String) throws -> Answer {
        let description = try SessionDescription(parsing: sdp)
        guard let media = description.media.first, let ufrag = media.iceUfrag ?? description.iceUfrag,
              let password = media.icePwd ?? description.icePwd,
              let print = (media.fingerprints + description.fingerprints).first else { throw Failure("answer lacks ICE or DTLS details") }
        return Answer(sdp: sdp, ufrag: ufrag, password: password, fingerprint: print.bytes, candidates: media.candidates,
                      ssrc: media.ssrcAttributes.first?.ssrc)
    }

    /// A Binding request as the controlling agent (RFC 8445 §7.2.2); returns the server's answer.
    func check(over transport: any TestPacketTransport, answer: Answer, useCandidate: Bool) async -> STUNMessage? {
        var builder = STUNMessageBuilder(type: .bindingRequest)
        try? builder.appendUsername("\(answer.ufrag):\(credentials.ufrag)")
        builder.appendPriority(0x6E00_00FF)
        builder.appendICEControlling(tieBreaker: tieBreaker)
        if useCandidate { builder.appendUseCandidate() }
        transport.send(builder.finish(integrityKey: STUNMessage.shortTermKey(password: answer.password), hmacSHA1: MediaEngine.hmacSHA1))
        while let packet = await transport.inbox.next() {
            if Demux.classify(packet) == .stun { return try? STUNMessage(parsing: packet) }
        }
        return nil
    }

    /// The DTLS handshake as client over `transport`, then SRTP keys.
    func connectDTLS(over transport: any TestPacketTransport, answer: Answer) async throws {
        let dtls = try DTLSEndpoint(role: .client, context: context, remoteFingerprint: answer.fingerprint)
        for datagram in dtls.start() { transport.send(datagram) }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            guard let packet = await transport.inbox.next(timeout: .milliseconds(500)) else {
                if transport.inbox.isClosed { throw Failure("the server closed the connection during DTLS") }
                for datagram in dtls.handleTimeout() { transport.send(datagram) }
                continue
            }
            guard Demux.classify(packet) == .dtls else { continue }
            let replies = packet.withUnsafeBytes { dtls.receive($0) }
            for datagram in replies { transport.send(datagram) }
            switch dtls.state {
            case .connected(let keys):
                srtp = try SRTPSession(keys)
                return
            case .failed(let error): throw Failure("DTLS failed: \(error)")
            case .closed: throw Failure("DTLS closed")
            case .handshaking: continue
            }
        }
        throw Failure("DTLS did not finish in 10 s")
    }

    /// One SRTP packet (VP8, payload type 96) with `sequence`, and 800 bytes of payload that
    /// start with `sequence` again (the SFU rewrites the header's, never the payload).
    func sendRTP(sequence: UInt16, over transport: any TestPacketTransport) {
        guard let srtp, let ssrc = sendingSSRC else { return }
        var packet: [UInt8] = [0x80, 96, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0, UInt8(sequence & 0xFF),
                               UInt8(ssrc >> 24), UInt8((ssrc >> 16) & 0xFF), UInt8((ssrc >> 8) & 0xFF), UInt8(ssrc & 0xFF), 0x10,
                               UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
        packet += [UInt8](repeating: 0xAB, count: 798)
        let length = packet.count
        packet += [UInt8](repeating: 0, count: SRTPSession.maxTrailer)
        guard let protected = packet.withUnsafeMutableBytes({ try? srtp.protectRTP($0, length: length) }) else { return }
        transport.send(Array(packet[0..<protected]))
    }

    /// The publisher's sequence number of a packet `sendRTP` sent, as forwarded (decrypted).
    static func sentSequence(_ packet: [UInt8]) -> UInt16? {
        packet.count >= 15 ? UInt16(packet[13]) << 8 | UInt16(packet[14]) : nil
    }

    /// The SSRC of a decrypted RTP packet.
    static func ssrc(_ packet: [UInt8]) -> UInt32? {
        packet.count >= 12 ? packet[8..<12].reduce(0) { $0 << 8 | UInt32($1) } : nil
    }

    /// The next RTP packet received on `transport`, decrypted (RTCP and anything else skipped).
    func receiveRTP(over transport: any TestPacketTransport, timeout: Duration = .seconds(2)) async -> [UInt8]? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, let packet = await transport.inbox.next(timeout: deadline - ContinuousClock.now) {
            guard Demux.classify(packet) == .rtp, let srtp else { continue }
            var bytes = packet
            if let length = bytes.withUnsafeMutableBytes({ try? srtp.unprotectRTP($0, length: $0.count) }) {
                return Array(bytes[0..<length])
            }
        }
        return nil
    }
}
