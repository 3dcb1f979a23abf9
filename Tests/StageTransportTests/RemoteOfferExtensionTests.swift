import StageTransport
import StageWire
import Testing

/// Which header extensions an answer takes from an offer: mid and rid always; abs-send-time only
/// on video the SFU sends, with a one-byte ID (RFC 8285 §4.2), so the forwarding path can write it;
/// transport-cc (extension and feedback) on what the remote sends, which the SFU reports on, and
/// on what the SFU sends when the remote offers the feedback (it estimates the remote's downlink from it).
@Suite struct RemoteOfferExtensionTests {
    /// An offer with one audio and one video section in `direction`, both offering abs-send-time as `id`.
    static func offer(direction: String, absSendTimeID id: Int, transportCC: Bool = false, transportCCFeedback: Bool = true) -> String {
        let section = { (kind: String, mid: Int, rtpmap: String) in """
            m=\(kind) 9 UDP/TLS/RTP/SAVPF \(rtpmap.prefix(3))\r
            c=IN IP4 0.0.0.0\r
            a=mid:\(mid)\r
            a=\(direction)\r
            a=rtcp-mux\r
            a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid\r
            a=extmap:\(id) http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time\r
            a=rtpmap:\(rtpmap)\r
            \(transportCC ? "a=extmap:5 \(RTPExtensionURI.transportWideCC)\r\n" : "")\
            \(transportCC && transportCCFeedback ? "a=rtcp-fb:\(rtpmap.prefix(3)) transport-cc\r\n" : "")
            """
        }
        return """
            v=0\r
            o=- 1 2 IN IP4 127.0.0.1\r
            s=-\r
            t=0 0\r
            a=group:BUNDLE 0 1\r
            a=ice-ufrag:abcd\r
            a=ice-pwd:abcdefghijklmnopqrstuvwx\r
            a=fingerprint:sha-256 00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF\r
            a=setup:actpass\r

            """ + section("audio", 0, "111 opus/48000/2") + section("video", 1, "96 VP8/90000")
    }

    @Test("abs-send-time is taken on video we send (recvonly, sendrecv offers) with IDs 1…14, nowhere else", arguments: [
        ("recvonly", 3, nil as UInt16?, 3 as UInt16?),
        ("sendrecv", 14, nil, 14),
        ("sendonly", 3, nil, nil),
        ("recvonly", 15, nil, nil),
    ])
    func absSendTime(direction: String, id: Int, audio: UInt16?, video: UInt16?) throws {
        let offer = try RemoteOffer(sdp: Self.offer(direction: direction, absSendTimeID: id))
        #expect(offer.sections.map { $0.extensions[RTPExtensionURI.absSendTime] } == [audio, video])
        #expect(offer.sections.map { $0.extensions[RTPExtensionURI.mid] } == [1, 1])
        let answer = AnswerBuilder(offer: offer, credentials: .random(), fingerprint: "AA",
                                   candidates: HostCandidates(addresses: ["127.0.0.1"], udpPort: 5000, tcpPort: 5001)).answer()
        #expect(answer.contains("a=extmap:\(id) \(RTPExtensionURI.absSendTime)") == (video != nil))
    }

    @Test("transport-cc is taken on what the remote sends, and on what we send when the remote offers its feedback", arguments: [
        ("sendonly", true, true), ("sendrecv", true, true), ("recvonly", true, true), ("recvonly", false, false),
    ])
    func transportCC(direction: String, feedbackOffered: Bool, taken: Bool) throws {
        let offer = try RemoteOffer(sdp: Self.offer(direction: direction, absSendTimeID: 3, transportCC: true,
                                                    transportCCFeedback: feedbackOffered))
        #expect(offer.sections.map { $0.extensions[RTPExtensionURI.transportWideCC] } == [taken ? 5 : nil, taken ? 5 : nil])
        #expect(offer.sections.map { $0.feedback.contains { $0.type == "transport-cc" } } == [taken, taken])
        let answer = AnswerBuilder(offer: offer, credentials: .random(), fingerprint: "AA",
                                   candidates: HostCandidates(addresses: ["127.0.0.1"], udpPort: 5000, tcpPort: 5001)).answer()
        #expect(answer.contains("a=extmap:5 \(RTPExtensionURI.transportWideCC)") == taken)
        #expect(answer.contains("a=rtcp-fb:96 transport-cc") == taken)
        #expect(answer.contains("a=rtcp-fb:111 transport-cc") == taken)
    }
}
