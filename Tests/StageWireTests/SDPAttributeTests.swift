import Testing
@testable import StageWire

/// Each attribute grammar on its own: parse, read fields, write back the same text.
@Suite struct SDPAttributeTests {
    func roundTrip<Value: SDPAttributeValue>(_ type: Value.Type, _ text: String) throws -> Value {
        let value = try Value(sdpValue: text)
        #expect(value.sdpValue == text)
        return value
    }

    @Test func rfc8839Section5_1CandidateWithExtensions() throws {
        let candidate = try roundTrip(SDPCandidate.self,
            "3582517153 1 udp 1686052607 203.0.113.7 54321 typ srflx raddr 192.168.1.10 rport 54321 generation 0 ufrag Hx3b")
        #expect(candidate.priority == 1_686_052_607)
        #expect(candidate.extensionValue("ufrag") == "Hx3b")
        #expect(try SDPCandidate(candidateLine: "a=candidate:" + candidate.sdpValue) == candidate)
        #expect(try SDPCandidate(candidateLine: candidate.description) == candidate)
    }

    @Test func rfc8839Section5_1MDNSCandidate() throws {
        let candidate = try roundTrip(SDPCandidate.self,
            "2395300328 1 udp 2113937151 8f2c6b1e-9a4d-4c3e-b1f0-7d5e3a2c1b0a.local 61234 typ host generation 0 network-cost 999")
        #expect(candidate.address.hasSuffix(".local"))
    }

    @Test func rfc8122Section5Fingerprint() throws {
        let fingerprint = try roundTrip(SDPFingerprint.self, "sha-256 00:0A:FF")
        #expect(fingerprint.bytes == [0x00, 0x0A, 0xFF])
        #expect(try SDPFingerprint(sdpValue: "sha-256 0a:ff").sdpValue == "sha-256 0A:FF")
    }

    @Test func rfc8285Section8ExtensionMap() throws {
        let plain = try roundTrip(SDPExtensionMap.self, "4 urn:ietf:params:rtp-hdrext:sdes:mid")
        #expect(plain.id == 4 && plain.direction == nil && plain.attributes == nil)
        let directed = try roundTrip(SDPExtensionMap.self, "12/sendonly urn:example:ext some attributes")
        #expect(directed.direction == .sendonly)
        #expect(directed.attributes == "some attributes")
    }

    @Test func rfc8851Section10RIDWithRestrictions() throws {
        let rid = try roundTrip(SDPRID.self, "h send pt=96,97;max-width=1280;max-height=720")
        #expect(rid.payloadTypes == [96, 97])
        #expect(rid.maxWidth == 1280 && rid.maxHeight == 720)
        #expect(try roundTrip(SDPRID.self, "q recv").restrictions.isEmpty)
    }

    @Test func rfc8853Section5_1SimulcastAlternativesAndPaused() throws {
        let simulcast = try roundTrip(SDPSimulcast.self, "send 1,2;~3 recv c")
        #expect(simulcast.send == [[.init(rid: "1"), .init(rid: "2")], [.init(rid: "3", paused: true)]])
        #expect(simulcast.receive == [[.init(rid: "c")]])
        #expect(simulcast.sendRIDs == ["1", "2", "3"])
        let receiveFirst = try roundTrip(SDPSimulcast.self, "recv a;b send c")
        #expect(receiveFirst.receiveFirst && receiveFirst.receiveRIDs == ["a", "b"])
    }

    @Test func rfc5576SSRCAndGroups() throws {
        let property = try roundTrip(SDPSSRCAttribute.self, "42 label")
        #expect(property.attribute == "label" && property.value == nil)
        let group = try roundTrip(SDPSSRCGroup.self, "FID 1 2")
        #expect(group.ssrcs == [1, 2])
    }

    @Test func rfc8866Section6_6RTPMapAndFMTP() throws {
        #expect(try roundTrip(SDPRTPMap.self, "111 opus/48000/2").channels == 2)
        let fmtp = try roundTrip(SDPFormatParameters.self, "97 apt=96")
        #expect(fmtp.associatedPayloadType == 96 && fmtp["apt"] == "96")
        // Spaces after ';' are tolerated on input and dropped on output.
        #expect(try SDPFormatParameters(sdpValue: "111 minptime=10; useinbandfec=1").sdpValue == "111 minptime=10;useinbandfec=1")
    }

    @Test func rfc4585Section4_2Feedback() throws {
        let all = try roundTrip(SDPRTCPFeedback.self, "* nack")
        #expect(all.applies(to: 5) && all.payloadType == nil)
        #expect(try roundTrip(SDPRTCPFeedback.self, "96 ccm fir").parameter == "fir")
    }

    @Test func rfc8830Section2MSIDAndGroup() throws {
        #expect(try roundTrip(SDPMediaStreamID.self, "- track").streamID == "-")
        #expect(try roundTrip(SDPGroup.self, "BUNDLE a b c").mids == ["a", "b", "c"])
        #expect(try roundTrip(SDPGroup.self, "BUNDLE").mids.isEmpty)
    }

    @Test func directionSetterReplaces() throws {
        var media = try #require(try SessionDescription(parsing: SDPFixtures.aiortcOffer).media.first)
        media.direction = .inactive
        #expect(media.direction == .inactive)
        #expect(media.lines.filter { $0.value == "sendrecv" }.isEmpty)
        media.setAttribute("mid", "audio")
        #expect(media.mid == "audio")
        media.removeAttributes(named: "candidate")
        #expect(media.candidates.isEmpty)
    }
}
