import Testing
@testable import StageWire

@Suite struct SDPParseTests {
    static let fixtures = [("chrome", SDPFixtures.chromeOffer), ("aiortc", SDPFixtures.aiortcOffer)]

    /// RFC 8866 §5: parse → serialize reproduces the input (CRLF line endings), for LF and CRLF input.
    @Test(arguments: fixtures)
    func rfc8866Section5RoundTripIsLossless(_ name: String, _ text: String) throws {
        let fromLF = try SessionDescription(parsing: text)
        #expect(fromLF.serialized() == SDPFixtures.crlf(text), "\(name)")
        let fromCRLF = try SessionDescription(parsing: SDPFixtures.crlf(text))
        #expect(fromCRLF == fromLF)
        #expect(try SessionDescription(parsing: fromLF.serialized()) == fromLF)
    }

    @Test func chromeOfferSessionLevel() throws {
        let offer = try SessionDescription(parsing: SDPFixtures.chromeOffer)
        #expect(offer.origin == SDPOrigin(sessionID: "4611731400430051336", sessionVersion: 2))
        #expect(offer.sessionName == "-")
        #expect(offer.timing == SDPTiming(start: 0, stop: 0))
        #expect(offer.bundleMIDs == ["0", "1"])
        #expect(offer.hasAttribute("extmap-allow-mixed"))
        #expect(offer.attributeValue("msid-semantic") == " WMS 6f3c1c5e-0b8f-4a44-9d0a-3d6d5e0c4b4e")
        #expect(!offer.isICELite)
        #expect(offer.media.map(\.media) == ["audio", "video"])
    }

    @Test func chromeOfferAudioSection() throws {
        let offer = try SessionDescription(parsing: SDPFixtures.chromeOffer)
        let audio = try #require(offer.media(mid: "0"))
        #expect(audio.port == 9)
        #expect(audio.proto == "UDP/TLS/RTP/SAVPF")
        #expect(audio.formats == ["111", "63", "9", "0", "8", "13", "110", "126"])
        #expect(audio.connection == SDPConnection(address: "0.0.0.0"))
        #expect(audio.rtpMap(for: 111) == SDPRTPMap(payloadType: 111, encodingName: "opus", clockRate: 48000, channels: 2))
        #expect(audio.rtpMap(for: 0)?.channels == nil)
        #expect(audio.formatParameters(for: 111) == [SDPParameter(name: "minptime", value: "10"), SDPParameter(name: "useinbandfec", value: "1")])
        #expect(audio.formatParameters(for: 63) == [SDPParameter(name: "111/111")])
        #expect(audio.rtcpFeedback(for: 111) == [SDPRTCPFeedback(payloadType: 111, type: "transport-cc")])
        #expect(audio.direction == .sendonly)
        #expect(audio.rtcpMux && audio.rtcpReducedSize)
        #expect(audio.msids == [SDPMediaStreamID(streamID: "6f3c1c5e-0b8f-4a44-9d0a-3d6d5e0c4b4e", trackID: "2b1d9f3a-6c1e-4f1b-a1c7-0b8f0d6b9a11")])
        #expect(audio.extensionID(for: RTPExtensionURI.audioLevel) == 1)
        #expect(audio.ssrcAttributes.first == SDPSSRCAttribute(ssrc: 3_735_928_559, attribute: "cname", value: "8bFq3xZl0aQkP3Yc"))
        #expect(audio.ssrcAttributes.last?.value == "6f3c1c5e-0b8f-4a44-9d0a-3d6d5e0c4b4e 2b1d9f3a-6c1e-4f1b-a1c7-0b8f0d6b9a11")
        #expect(audio.codecs.map(\.name) == ["opus", "red", "G722", "PCMU", "PCMA", "CN", "telephone-event", "telephone-event"])
    }

    @Test func chromeOfferICEAndDTLS() throws {
        let audio = try #require(try SessionDescription(parsing: SDPFixtures.chromeOffer).media.first)
        #expect(audio.iceUfrag == "Hx3b")
        #expect(audio.icePwd == "f3dAv5Iq3wW0yT7ilDbG1PcF")
        #expect(audio.iceOptions == ["trickle"])
        #expect(audio.setup == .actpass)
        let fingerprint = try #require(audio.fingerprints.first)
        #expect(fingerprint.hashFunction == "sha-256")
        #expect(fingerprint.bytes.count == 32)
        #expect(fingerprint.bytes.prefix(3) == [0x7B, 0x8B, 0xF0])
        let candidates = audio.candidates
        #expect(candidates.count == 3)
        #expect(candidates[0] == SDPCandidate(
            foundation: "1467250027", component: 1, transport: "udp", priority: 2_122_260_223,
            address: "192.168.1.10", port: 54321, type: "host",
            extensions: [.init(name: "generation", value: "0"), .init(name: "network-id", value: "1"), .init(name: "network-cost", value: "10")]))
        #expect(candidates[1].type == "srflx")
        #expect(candidates[1].relatedAddress == "192.168.1.10")
        #expect(candidates[1].relatedPort == 54321)
        #expect(candidates[2].transport == "tcp")
        #expect(candidates[2].extensionValue("tcptype") == "active")
        #expect(!audio.endOfCandidates)
    }

    @Test func chromeOfferVideoSimulcast() throws {
        let video = try #require(try SessionDescription(parsing: SDPFixtures.chromeOffer).media(mid: "1"))
        #expect(video.payloadTypes == [96, 97])
        #expect(video.rtpMap(for: 96)?.encodingName == "VP8")
        #expect(video.rtpMap(for: 96)?.clockRate == 90000)
        #expect(video.retransmissionPayloadType(for: 96) == 97)
        #expect(video.formatParameters.first?.associatedPayloadType == 96)
        let feedback = video.rtcpFeedback(for: 96).map { "\($0.type) \($0.parameter ?? "")" }
        #expect(feedback == ["goog-remb ", "transport-cc ", "ccm fir", "nack ", "nack pli"])
        #expect(video.rids == ["q", "h", "f"].map { SDPRID(id: $0, direction: .send) })
        #expect(video.simulcast == SDPSimulcast(sendRIDs: ["q", "h", "f"]))
        #expect(video.simulcast?.sendRIDs == ["q", "h", "f"])
        #expect(video.extensionID(for: RTPExtensionURI.mid) == 4)
        #expect(video.extensionID(for: RTPExtensionURI.rtpStreamID) == 10)
        #expect(video.extensionID(for: RTPExtensionURI.repairedRTPStreamID) == 11)
        #expect(video.extensionID(for: RTPExtensionURI.absSendTime) == 2)
        #expect(video.extensionID(for: RTPExtensionURI.transportWideCC) == 3)
        #expect(video.ssrcAttributes.isEmpty)
        let codecs = video.codecs
        #expect(codecs.map(\.payloadType) == [96, 97])
        #expect(codecs[0].feedback.count == 5)
        #expect(codecs[1].parameters[parameter: "apt"] == "96")
    }

    @Test func aiortcOfferFields() throws {
        let offer = try SessionDescription(parsing: SDPFixtures.aiortcOffer)
        #expect(offer.origin?.sessionVersion == 3_912_345_678)
        #expect(offer.bundleMIDs == ["0", "1"])
        let audio = offer.media[0], video = offer.media[1]
        #expect(audio.port == 52981)
        #expect(audio.direction == .sendrecv)
        #expect(audio.connection?.address == "192.168.1.20")
        #expect(audio.endOfCandidates)
        #expect(audio.candidates.map(\.type) == ["host", "srflx"])
        #expect(audio.candidates[0].foundation.count == 32)
        #expect(audio.iceUfrag == "Qm4T")
        #expect(audio.rtcpMux && !audio.rtcpReducedSize)
        #expect(video.ssrcGroups == [SDPSSRCGroup(semantics: "FID", ssrcs: [2_961_488_421, 1_543_672_306])])
        #expect(video.retransmissionPayloadType(for: 97) == 98)
        #expect(video.retransmissionPayloadType(for: 99) == 100)
        #expect(video.formatParameters(for: 99)[parameter: "profile-level-id"] == "42001f")
        #expect(video.codecs.map(\.name) == ["VP8", "rtx", "H264", "rtx"])
        #expect(video.rids.isEmpty && video.simulcast == nil)
    }

    /// Editing keeps unknown lines and writes typed values back in their RFC forms.
    @Test func buildAnAnswer() throws {
        let offer = try SessionDescription(parsing: SDPFixtures.chromeOffer)
        var answer = SessionDescription(origin: SDPOrigin(sessionID: "1", sessionVersion: 1))
        answer.append(SDPGroup(mids: offer.media.compactMap(\.mid)))
        answer.appendAttribute("ice-lite")
        var video = MediaDescription(media: "video", formats: ["96", "97"])
        video.appendAttribute("mid", "1")
        video.direction = .recvonly
        video.append(SDPSetupRole.passive)
        video.append(SDPRID(id: "q", direction: .recv))
        video.append(SDPSimulcast(receive: [[.init(rid: "q")], [.init(rid: "h", paused: true)]]))
        video.append(SDPCandidate(foundation: "1", priority: 2_130_706_431, address: "198.51.100.1", port: 4443))
        video.appendAttribute("end-of-candidates")
        answer.media.append(video)
        let text = answer.serialized()
        #expect(text.hasPrefix("v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0 1\r\na=ice-lite\r\n"))
        #expect(text.contains("\r\nm=video 9 UDP/TLS/RTP/SAVPF 96 97\r\na=mid:1\r\na=recvonly\r\na=setup:passive\r\n"))
        #expect(text.contains("a=simulcast:recv q;~h\r\n"))
        #expect(text.contains("a=candidate:1 1 udp 2130706431 198.51.100.1 4443 typ host\r\n"))
        let reparsed = try SessionDescription(parsing: text)
        #expect(reparsed == answer)
        #expect(reparsed.isICELite)
        #expect(reparsed.media[0].simulcast?.receive[1] == [.init(rid: "h", paused: true)])
    }
}
