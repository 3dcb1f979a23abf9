import StageWire
import Testing
@testable import StageTransport

/// The candidate lines of the server's answers: one UDP and one passive TCP host candidate per
/// advertised address, priorities by RFC 8445 §5.1.2.1 / RFC 6544 §4.2, foundations distinct
/// per (address, transport) (RFC 8445 §5.1.1.3).
struct HostCandidatesTests {
    static let candidates = HostCandidates(addresses: ["203.0.113.7", "2001:db8::7", "127.0.0.1"], udpPort: 7880, tcpPort: 7881)

    @Test("RFC 8445 §5.1.2.1 / RFC 6544 §4.2: the exact lines, UDP first then TCP passive, each in address order",
          arguments: zip(0..<6, [
              "candidate:1 1 udp 2130706431 203.0.113.7 7880 typ host",
              "candidate:3 1 udp 2130706175 2001:db8::7 7880 typ host",
              "candidate:5 1 udp 2130705919 127.0.0.1 7880 typ host",
              // 2^24·126 + 2^8·(4·2^13 + 8191) + 255: passive direction, then the address preference.
              "candidate:2 1 tcp 2124414975 203.0.113.7 7881 typ host tcptype passive",
              "candidate:4 1 tcp 2124414719 2001:db8::7 7881 typ host tcptype passive",
              "candidate:6 1 tcp 2124414463 127.0.0.1 7881 typ host tcptype passive",
          ]))
    func candidateLine(index: Int, line: String) {
        #expect(Self.candidates.sdpCandidates[index].description == line)
    }

    @Test("every UDP candidate ranks above every TCP one; the first address ranks highest in each; foundations are distinct")
    func ordering() {
        let all = Self.candidates.sdpCandidates
        let udp = all.filter { $0.transport == "udp" }.map(\.priority)
        let tcp = all.filter { $0.transport == "tcp" }.map(\.priority)
        #expect(udp.count == 3 && tcp.count == 3)
        #expect((udp.min() ?? 0) > (tcp.max() ?? .max))
        #expect(udp == udp.sorted(by: >) && tcp == tcp.sorted(by: >))
        #expect(Set(all.map(\.foundation)).count == all.count)
        #expect(Set(all.map(\.priority)).count == all.count)
        // Many addresses keep the order and stay within each transport's band.
        #expect(HostCandidates.udpPriority(index: 9000) == HostCandidates.udpPriority(index: 8191))
        #expect(HostCandidates.udpPriority(index: 9000) > HostCandidates.tcpPriority(index: 0))
    }

    @Test("ICE-TCP off: UDP candidates only")
    func udpOnly() {
        let lines = HostCandidates(addresses: ["192.0.2.1"], udpPort: 9, tcpPort: nil).sdpCandidates.map(\.description)
        #expect(lines == ["candidate:1 1 udp 2130706431 192.0.2.1 9 typ host"])
    }

    @Test("UDP and TCP candidates each name only their own transport's addresses (a family one of them does not serve is left out)")
    func perTransportAddresses() {
        let candidates = HostCandidates(udpAddresses: ["192.0.2.1", "2001:db8::1"], udpPort: 7880, tcpAddresses: ["192.0.2.1"], tcpPort: 7881)
        #expect(candidates.sdpCandidates.map(\.description) == [
            "candidate:1 1 udp 2130706431 192.0.2.1 7880 typ host",
            "candidate:3 1 udp 2130706175 2001:db8::1 7880 typ host",
            "candidate:2 1 tcp 2124414975 192.0.2.1 7881 typ host tcptype passive",
        ])
        let v6Only = HostCandidates(udpAddresses: [], udpPort: 7880, tcpAddresses: ["2001:db8::1"], tcpPort: 7881)
        #expect(v6Only.connectionAddress == ("IP6", "2001:db8::1"))
    }

    @Test("each candidate line parses back (RFC 8839 §5.1) with its transport, port and tcptype")
    func roundTrip() throws {
        for candidate in Self.candidates.sdpCandidates {
            let parsed = try SDPCandidate(candidateLine: candidate.description)
            #expect(parsed == candidate)
            #expect(parsed.extensionValue("tcptype") == (parsed.transport == "tcp" ? "passive" : nil))
        }
    }

    static let offer = """
        v=0\r
        o=- 1 2 IN IP4 127.0.0.1\r
        s=-\r
        t=0 0\r
        a=group:BUNDLE 0 1\r
        m=audio 9 UDP/TLS/RTP/SAVPF 111\r
        c=IN IP4 0.0.0.0\r
        a=mid:0\r
        a=ice-ufrag:abcd\r
        a=ice-pwd:abcdefghijklmnopqrstuvwx\r
        a=fingerprint:sha-256 00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF\r
        a=setup:actpass\r
        a=sendonly\r
        a=rtcp-mux\r
        a=rtpmap:111 opus/48000/2\r
        m=video 9 UDP/TLS/RTP/SAVPF 96\r
        c=IN IP4 0.0.0.0\r
        a=mid:1\r
        a=sendonly\r
        a=rtcp-mux\r
        a=rtpmap:96 VP8/90000\r

        """

    func answer(_ candidates: HostCandidates) throws -> SessionDescription {
        let builder = AnswerBuilder(offer: try RemoteOffer(sdp: Self.offer), credentials: .random(), fingerprint: "AA", candidates: candidates)
        return try SessionDescription(parsing: builder.answer())
    }

    @Test("RFC 8839 §4.2.1.1: every section of the answer lists all candidates then a=end-of-candidates; c= and m= name the first address's UDP port")
    func answerSections() throws {
        let answer = try answer(Self.candidates)
        #expect(answer.media.count == 2)
        for media in answer.media {
            #expect(media.candidates == Self.candidates.sdpCandidates)
            #expect(media.port == 7880)
            #expect(media.connection?.sdpValue == "IN IP4 203.0.113.7")
            #expect(media.allLines.filter { $0.description == "a=end-of-candidates" }.count == 1)
            #expect(media.allLines.last?.description == "a=end-of-candidates")
        }
    }

    @Test("an IPv6 first address gives IN IP6 in o= and c=")
    func ipv6First() throws {
        let answer = try answer(HostCandidates(addresses: ["::1", "127.0.0.1"], udpPort: 5000, tcpPort: 5001))
        #expect(answer.origin?.addressType == "IP6" && answer.origin?.address == "::1")
        #expect(answer.media.allSatisfy { $0.connection?.sdpValue == "IN IP6 ::1" })
    }
}
