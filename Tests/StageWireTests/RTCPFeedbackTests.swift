import StageWire
import Testing

/// RFC 4585 §6.2.1 Generic NACK, §6.3.1 PLI, RFC 5104 §4.3.1 FIR, draft-alvestrand-rmcat-remb-03.
@Suite struct RTCPFeedbackTests {
    static let nack: [UInt8] = [
        0x81, 0xCD, 0x00, 0x04,  // FMT=1 | PT=RTPFB 205 | length 4
        0x00, 0x00, 0x00, 0x01,  // SSRC of packet sender
        0x12, 0x34, 0x56, 0x78,  // SSRC of media source
        0x12, 0x34, 0x00, 0x05,  // PID 0x1234, BLP bits 0 and 2: 0x1235, 0x1237
        0xFF, 0xFF, 0x80, 0x00,  // PID 0xFFFF, BLP bit 15: 0xFFFF + 16 wraps to 0x000F
    ]

    @Test("RFC 4585 §6.2.1: Generic NACK PID + BLP expands to sequence numbers")
    func genericNACK() throws {
        let nack = try RTCPGenericNACK(parsing: Self.nack)
        #expect(nack.senderSSRC == 1 && nack.mediaSSRC == 0x1234_5678)
        #expect(nack.entries == [.init(packetID: 0x1234, lostBitmask: 0x0005), .init(packetID: 0xFFFF, lostBitmask: 0x8000)])
        #expect(nack.lostSequenceNumbers == [0x1234, 0x1235, 0x1237, 0xFFFF, 0x000F])
        #expect(try nack.serialized() == Self.nack)
    }

    @Test("RFC 4585 §6.2.1: a list of lost packets packs into PID + BLP entries, across the wrap")
    func genericNACKFromList() throws {
        let lost: [UInt16] = [0xFFFE, 0xFFFF, 0x0000, 0x000E, 0x000F, 0x0010, 0x0010, 0x0100]
        let nack = RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: lost)
        #expect(nack.entries == [
            .init(packetID: 0xFFFE, lostBitmask: 0b1000_0000_0000_0011),  // +1, +2, +16
            .init(packetID: 0x000F, lostBitmask: 0b1),  // 0x0010 (the duplicate dropped)
            .init(packetID: 0x0100),
        ])
        #expect(nack.lostSequenceNumbers == [0xFFFE, 0xFFFF, 0x0000, 0x000E, 0x000F, 0x0010, 0x0100])
        #expect(try RTCPGenericNACK(parsing: nack.serialized()) == nack)
    }

    @Test("RFC 4585 §6.3.1: PLI carries only the two SSRCs")
    func pictureLossIndication() throws {
        let bytes: [UInt8] = [
            0x81, 0xCE, 0x00, 0x02,  // FMT=1 | PT=PSFB 206 | length 2
            0x00, 0x00, 0x00, 0x01,  // sender
            0xF7, 0xB1, 0x6E, 0x83,  // media source: the publisher's SSRC
        ]
        let pli = try RTCPPictureLossIndication(parsing: bytes)
        #expect(pli == RTCPPictureLossIndication(senderSSRC: 1, mediaSSRC: 0xF7B1_6E83))
        #expect(try pli.serialized() == bytes)
        #expect(try RTCPPacket(parsing: bytes) == .pictureLossIndication(pli))
    }

    @Test("RFC 5104 §4.3.1: FIR entries of SSRC and command sequence number")
    func fullIntraRequest() throws {
        let bytes: [UInt8] = [
            0x84, 0xCE, 0x00, 0x06,  // FMT=4 | PT=PSFB 206 | length 6
            0x00, 0x00, 0x00, 0x01,  // sender
            0x00, 0x00, 0x00, 0x00,  // media source: unused, 0
            0x0A, 0x0B, 0x0C, 0x0D,  // entry 1: SSRC
            0x07, 0x00, 0x00, 0x00,  //          seq nr 7, reserved
            0x0E, 0x0F, 0x10, 0x11,  // entry 2
            0xFF, 0x00, 0x00, 0x00,
        ]
        let fir = try RTCPFullIntraRequest(parsing: bytes)
        #expect(fir.entries == [.init(ssrc: 0x0A0B_0C0D, sequenceNumber: 7), .init(ssrc: 0x0E0F_1011, sequenceNumber: 255)])
        #expect(try fir.serialized() == bytes)
    }

    /// Chrome's REMB while watching a 6 Mb/s stream (as recorded in pion/rtcp's tests).
    static let chromeREMB: [UInt8] = [
        0x8F, 0xCE, 0x00, 0x05,  // FMT=15 | PT=PSFB 206 | length 5
        0x00, 0x00, 0x00, 0x01,  // sender SSRC 1
        0x00, 0x00, 0x00, 0x00,  // media source 0
        0x52, 0x45, 0x4D, 0x42,  // "REMB"
        0x01, 0x1A, 0x20, 0xDF,  // Num SSRC 1 | exp 6 | mantissa 139487
        0x48, 0x74, 0xED, 0x16,  // SSRC feedback
    ]

    @Test("draft-alvestrand-rmcat-remb-03 §2.2: Chrome REMB, 139487 × 2^6 b/s")
    func chromeREMB() throws {
        let remb = try RTCPReceiverEstimatedMaxBitrate(parsing: Self.chromeREMB)
        #expect(remb.senderSSRC == 1 && remb.bitrate == 8_927_168 && remb.ssrcs == [0x4874_ED16])
        #expect(try remb.serialized() == Self.chromeREMB)
        #expect(try RTCPPacket(parsing: Self.chromeREMB) == .receiverEstimatedMaxBitrate(remb))
    }

    @Test("draft-alvestrand-rmcat-remb-03 §2.2: writing rounds the bitrate down to 18 bits of mantissa", arguments: [
        (UInt64(0), UInt64(0)), (UInt64(262_143), UInt64(262_143)), (UInt64(262_144), UInt64(262_144)), (UInt64(262_145), UInt64(262_144)),
        (UInt64(8_927_167), UInt64(8_927_104)), (UInt64.max, UInt64(0xFFFF_C000_0000_0000)),
    ])
    func rembRounding(_ bitrate: UInt64, _ written: UInt64) throws {
        let remb = RTCPReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: bitrate, ssrcs: [2, 3])
        #expect(try RTCPReceiverEstimatedMaxBitrate(parsing: remb.serialized()).bitrate == written)
    }

    @Test("RFC 4585 §6.4: application-layer feedback that is not REMB stays raw")
    func otherApplicationFeedback() throws {
        let bytes: [UInt8] = [0x8F, 0xCE, 0x00, 0x03, 0, 0, 0, 1, 0, 0, 0, 0, 0x47, 0x4F, 0x4F, 0x47]  // "GOOG"
        #expect(try RTCPPacket(parsing: bytes) == .raw(RTCPRawPacket(
            packetType: .payloadFeedback, count: 15, body: [0, 0, 0, 1, 0, 0, 0, 0, 0x47, 0x4F, 0x4F, 0x47])))
        #expect(rtcpError { try RTCPReceiverEstimatedMaxBitrate(parsing: bytes) } == .rembIdentifierMissing)
    }

    @Test("RFC 4585 §6.2: feedback formats StageWire does not decode stay raw (TMMBR, FMT 3)")
    func unknownTransportFeedback() throws {
        let bytes: [UInt8] = [0x83, 0xCD, 0x00, 0x04, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0x04, 0x00, 0x20, 0x00]
        let packet = try RTCPPacket(parsing: bytes)
        #expect(packet.packetType == .transportFeedback)
        guard case let .raw(raw) = packet else {
            Issue.record("expected raw, got \(packet)")
            return
        }
        #expect(raw.count == 3 && raw.body.count == 16)
        #expect(try packet.serialized() == bytes)
    }

    @Test("RFC 4585 §6.1: a typed parser refuses another feedback format")
    func wrongFormat() {
        #expect(rtcpError { try RTCPPictureLossIndication(parsing: Self.chromeREMB) }
            == .wrongPacketType(expected: .payloadFeedback, got: .payloadFeedback, format: 15))
        #expect(rtcpError { try RTCPGenericNACK(parsing: RTCPReportTests.senderReport) }
            == .wrongPacketType(expected: .transportFeedback, got: .senderReport, format: 1))
    }
}
