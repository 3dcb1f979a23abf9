import StageWire
import Testing

/// RFC 3550 §6.4 sender and receiver reports, §6.5 SDES, §6.6 BYE.
@Suite struct RTCPReportTests {
    static let senderReport: [UInt8] = [
        0x81, 0xC8, 0x00, 0x0C,  // V=2 P=0 RC=1 | PT=SR 200 | length 12 (52 bytes)
        0x90, 0x2F, 0x9E, 0x2E,  // SSRC of sender
        0xDA, 0x8B, 0xD1, 0xFC,  // NTP timestamp, most significant word
        0xDD, 0xDD, 0xA0, 0x5A,  // NTP timestamp, least significant word
        0xAA, 0xF4, 0xED, 0xD5,  // RTP timestamp
        0x00, 0x00, 0x00, 0x01,  // sender's packet count 1
        0x00, 0x00, 0x00, 0x02,  // sender's octet count 2
        0xBC, 0x5E, 0x9A, 0x40,  // report block: SSRC_1
        0x0A, 0xFF, 0xFF, 0xFE,  // fraction lost 10/256 | cumulative lost −2 (duplicates)
        0x00, 0x01, 0x12, 0x34,  // extended highest seq: 1 cycle, seq 0x1234
        0x00, 0x00, 0x00, 0x20,  // jitter 32
        0xD1, 0xFC, 0xDD, 0xDD,  // LSR: middle 32 bits of an NTP time
        0x00, 0x01, 0x80, 0x00,  // DLSR 1.5 s (units of 1/65536 s)
    ]

    @Test("RFC 3550 §6.4.1: sender report with one block, every field")
    func senderReportFields() throws {
        let report = try RTCPSenderReport(parsing: Self.senderReport)
        #expect(report.ssrc == 0x902F_9E2E)
        #expect(report.ntpTime == 0xDA8B_D1FC_DDDD_A05A)
        #expect(report.rtpTime == 0xAAF4_EDD5)
        #expect(report.packetCount == 1 && report.octetCount == 2)
        #expect(report.profileExtensions.isEmpty)
        #expect(report.reports == [
            RTCPReceptionReport(
                ssrc: 0xBC5E_9A40, fractionLost: 10, cumulativeLost: -2, extendedHighestSequenceNumber: 0x0001_1234,
                jitter: 32, lastSenderReport: 0xD1FC_DDDD, delaySinceLastSenderReport: 0x0001_8000)
        ])
        #expect(try report.serialized() == Self.senderReport)
        #expect(try RTCPPacket(parsing: Self.senderReport) == .senderReport(report))
    }

    @Test("RFC 3550 §6.4.2: receiver report without blocks, as receive-only endpoints send")
    func emptyReceiverReport() throws {
        let bytes: [UInt8] = [0x80, 0xC9, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01]  // RC=0 | RR | length 1 | SSRC 1
        let report = try RTCPReceiverReport(parsing: bytes)
        #expect(report == RTCPReceiverReport(ssrc: 1))
        #expect(try report.serialized() == bytes)
    }

    @Test("RFC 3550 §6.4.1: cumulative loss is signed 24 bits; writing clamps to its range")
    func cumulativeLostClamp() throws {
        let blocks = [
            RTCPReceptionReport(ssrc: 1, cumulativeLost: 0x7F_FFFF),
            RTCPReceptionReport(ssrc: 2, cumulativeLost: -0x80_0000),
            RTCPReceptionReport(ssrc: 3, cumulativeLost: 50_000_000),
        ]
        let parsed = try RTCPReceiverReport(parsing: RTCPReceiverReport(ssrc: 9, reports: blocks).serialized())
        #expect(parsed.reports.map(\.cumulativeLost) == [0x7F_FFFF, -0x80_0000, 0x7F_FFFF])
    }

    @Test("RFC 3550 §6.4.1: profile-specific extensions after the blocks are kept, padded with P")
    func profileExtensions() throws {
        let report = RTCPReceiverReport(ssrc: 7, profileExtensions: [0xAB, 0xCD, 0xEF])
        let bytes = try report.serialized()
        #expect(bytes == [0xA0, 0xC9, 0x00, 0x02, 0x00, 0x00, 0x00, 0x07, 0xAB, 0xCD, 0xEF, 0x01])
        #expect(try RTCPReceiverReport(parsing: bytes) == report)
    }

    @Test("RFC 3550 §6.5: SDES CNAME chunk, null-terminated and padded to 32 bits")
    func sdesCNAME() throws {
        let bytes: [UInt8] = [
            0x81, 0xCA, 0x00, 0x06,  // SC=1 | PT=SDES 202 | length 6 (28 bytes)
            0x43, 0x73, 0x0B, 0x5A,  // SSRC
            0x01, 0x10,  //             CNAME, 16 bytes
            0x68, 0x4D, 0x52, 0x55, 0x76, 0x52, 0x58, 0x38, 0x49, 0x6A, 0x7A, 0x37, 0x54, 0x4A, 0x73, 0x48,  // "hMRUvRX8Ijz7TJsH"
            0x00, 0x00,  //             END + null padding
        ]
        let sdes = try RTCPSourceDescription(parsing: bytes)
        #expect(sdes.cname(of: 0x4373_0B5A) == "hMRUvRX8Ijz7TJsH")
        #expect(sdes == RTCPSourceDescription(source: 0x4373_0B5A, cname: "hMRUvRX8Ijz7TJsH"))
        #expect(try sdes.serialized() == bytes)
    }

    @Test("RFC 3550 §6.5: several chunks; unknown and PRIV items are kept raw")
    func sdesItemsRaw() throws {
        let sdes = RTCPSourceDescription(chunks: [
            .init(source: 1, items: [.init(type: .cname, text: "a"), .init(type: .tool, text: "stage")]),
            .init(source: 2, items: [.init(type: .privateExtension, value: [3, 0x61, 0x62, 0x63, 0xFF]), .init(type: .init(rawValue: 42), value: [])]),
            .init(source: 3, items: []),
        ])
        let bytes = try sdes.serialized()
        #expect(bytes.count % 4 == 0 && bytes[0] == 0x83)
        let parsed = try RTCPSourceDescription(parsing: bytes)
        #expect(parsed == sdes && parsed.cname(of: 1) == "a" && parsed.cname(of: 2) == nil)
        #expect(rtcpError { try RTCPSourceDescription(chunks: [.init(source: 1, items: [.init(type: .end, value: [])])]).serialized() } == .sdesEndItem)
    }

    @Test("RFC 3550 §6.6: BYE with a reason, padded to 32 bits")
    func goodbyeWithReason() throws {
        let bytes: [UInt8] = [
            0x82, 0xCB, 0x00, 0x05,  // SC=2 | PT=BYE 203 | length 5 (24 bytes)
            0x00, 0x00, 0x00, 0x01,  // SSRC 1
            0x00, 0x00, 0x00, 0x02,  // SSRC 2
            0x0A,  //                   reason length 10
            0x63, 0x61, 0x6D, 0x65, 0x72, 0x61, 0x20, 0x6F, 0x66, 0x66,  // "camera off"
            0x00,  //                   null padding
        ]
        let bye = try RTCPGoodbye(parsing: bytes)
        #expect(bye.sources == [1, 2] && bye.reasonText == "camera off")
        #expect(try bye.serialized() == bytes)
        let plain = RTCPGoodbye(sources: [9])
        #expect(try plain.serialized() == [0x81, 0xCB, 0x00, 0x01, 0x00, 0x00, 0x00, 0x09])
        #expect(try RTCPGoodbye(parsing: plain.serialized()).reason == nil)
    }

    @Test("RFC 3550 §6.4.1: more than 31 report blocks cannot be written")
    func tooManyBlocks() {
        let report = RTCPReceiverReport(ssrc: 1, reports: (0..<32).map { RTCPReceptionReport(ssrc: $0) })
        var out: [UInt8] = [0xEE]
        #expect(rtcpError { try report.serialize(into: &out) } == .countTooLarge(32))
        #expect(out == [0xEE])
    }
}
