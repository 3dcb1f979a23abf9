import StageWire
import Testing

/// Malformed RTCP bytes (pion's `TestUnmarshal_ErrorHandling`): each must throw its named error,
/// and every truncation of a valid packet must throw, never trap.
@Suite struct RTCPErrorHandlingTests {
    static let cases: [MediaMalformedCase<RTCPError>] = [
        MediaMalformedCase(
            name: "RFC 3550 §6.4.1: fewer than 4 header bytes is rejected",
            bytes: [0x80, 0xC9, 0x00], error: .headerTooShort(needed: 4, got: 3)),
        MediaMalformedCase(
            name: "RFC 3550 §6.4.1: version 1 is rejected",
            bytes: [0x40, 0xC9, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01], error: .badVersion(1)),
        MediaMalformedCase(
            name: "RFC 3550 §6.4.1: length field beyond the buffer is rejected",
            bytes: [0x80, 0xC9, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01], error: .lengthExceedsBuffer(declared: 12, available: 8)),
        MediaMalformedCase(
            name: "RFC 3550 §6.4.1: padding count zero is rejected",
            bytes: [0xA0, 0xC9, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00], error: .paddingCountZero),
        MediaMalformedCase(
            name: "RFC 3550 §6.4.1: padding count larger than the body is rejected",
            bytes: [0xA0, 0xC9, 0x00, 0x01, 0x00, 0x00, 0x00, 0x09], error: .paddingExceedsPacket(padding: 9, available: 4)),
        MediaMalformedCase(
            name: "RFC 3550 §6.4.1: SR whose RC promises a block it lacks is rejected",
            bytes: [0x81, 0xC8, 0x00, 0x06] + [UInt8](repeating: 0, count: 24),
            error: .packetTooShort(type: .senderReport, needed: 48, got: 24)),
        MediaMalformedCase(
            name: "RFC 3550 §6.4.2: RR whose RC exceeds its length is rejected",
            bytes: [0x82, 0xC9, 0x00, 0x07] + [UInt8](repeating: 0, count: 28),
            error: .packetTooShort(type: .receiverReport, needed: 52, got: 28)),
        MediaMalformedCase(
            name: "RFC 3550 §6.5: SDES item running past the packet is rejected",
            bytes: [0x81, 0xCA, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x01, 0x09, 0x61, 0x62], error: .sdesChunkTruncated),
        MediaMalformedCase(
            name: "RFC 3550 §6.5: SDES chunk without its END octet is rejected",
            bytes: [0x81, 0xCA, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x01, 0x02, 0x61, 0x62], error: .sdesChunkTruncated),
        MediaMalformedCase(
            name: "RFC 3550 §6.6: BYE reason running past the packet is rejected",
            bytes: [0x81, 0xCB, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x0A, 0x61, 0x62, 0x63], error: .goodbyeReasonTruncated),
        MediaMalformedCase(
            name: "RFC 4585 §6.2.1: NACK with zero FCI is rejected",
            bytes: [0x81, 0xCD, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02], error: .nackWithoutFCI),
        MediaMalformedCase(
            name: "RFC 4585 §6.3.1: PLI without the media SSRC is rejected",
            bytes: [0x81, 0xCE, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01],
            error: .packetTooShort(type: .payloadFeedback, needed: 8, got: 4)),
        MediaMalformedCase(
            name: "RFC 5104 §4.3.1: FIR with a partial entry is rejected",
            bytes: [0x84, 0xCE, 0x00, 0x03, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9], error: .firInvalidFCI(bytes: 4)),
        MediaMalformedCase(
            name: "draft-alvestrand-rmcat-remb-03 §2.2: Num SSRC beyond the length is rejected",
            bytes: [0x8F, 0xCE, 0x00, 0x05, 0, 0, 0, 1, 0, 0, 0, 0, 0x52, 0x45, 0x4D, 0x42, 0x02, 0x00, 0x00, 0x01, 0, 0, 0, 7],
            error: .rembLengthMismatch(expected: 24, got: 20)),
        MediaMalformedCase(
            name: "draft-alvestrand-rmcat-remb-03 §2.2: mantissa × 2^exp beyond 64 bits is rejected",
            bytes: [0x8F, 0xCE, 0x00, 0x04, 0, 0, 0, 1, 0, 0, 0, 0, 0x52, 0x45, 0x4D, 0x42, 0x00, 0xFF, 0xFF, 0xFF],
            error: .rembBitrateOverflow(mantissa: 0x3FFFF, exponent: 63)),
        MediaMalformedCase(
            name: "draft-holmer-…-01 §3.1.1: status count beyond the chunks is rejected",
            bytes: [0xAF, 0xCD, 0x00, 0x05, 0, 0, 0, 1, 0, 0, 0, 2, 0x00, 0x00, 0x00, 0x64, 0, 0, 0, 0, 0x00, 0x0A, 0x00, 0x02],
            error: .transportCCStatusCountOverflow(statusCount: 100, described: 10)),
        MediaMalformedCase(
            name: "draft-holmer-…-01 §3.1.5: receive deltas cut short are rejected",
            bytes: [0xAF, 0xCD, 0x00, 0x05, 0, 0, 0, 1, 0, 0, 0, 2, 0x00, 0x00, 0x00, 0x02, 0, 0, 0, 0, 0x20, 0x02, 0x11, 0x01],
            error: .transportCCDeltasTruncated(needed: 2, got: 1)),
        MediaMalformedCase(
            name: "draft-holmer-…-01 §3.1: packet status count 0 is rejected",
            bytes: [0x8F, 0xCD, 0x00, 0x04, 0, 0, 0, 1, 0, 0, 0, 2, 0x00, 0x00, 0x00, 0x00, 0, 0, 0, 0],
            error: .transportCCEmpty),
        MediaMalformedCase(
            name: "RFC 3550 §6.1: compound with trailing garbage is rejected",
            bytes: [0x80, 0xC9, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0xFF, 0xFF], error: .trailingBytes(2)),
    ]

    @Test(arguments: cases)
    func malformed(_ testCase: MediaMalformedCase<RTCPError>) {
        #expect(rtcpError { try RTCPPacket.parseCompound(testCase.bytes) } == testCase.error)
    }

    static let validPackets: [[UInt8]] = [
        RTCPReportTests.senderReport, RTCPFeedbackTests.nack, RTCPFeedbackTests.chromeREMB,
        RTCPTransportCCTests.capturedRunLength, RTCPTransportCCTests.allChunkTypes,
        [0x81, 0xCA, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x01, 0x03, 0x61, 0x62, 0x63, 0x00, 0x00, 0x00],  // SDES
        [0x81, 0xCB, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x03, 0x61, 0x62, 0x63],  // BYE "abc"
    ]

    @Test("RFC 3550 §6.4.1: every truncation of a valid packet throws, never traps", arguments: validPackets)
    func truncations(_ packet: [UInt8]) throws {
        _ = try RTCPPacket.parseCompound(packet)
        for prefix in mediaPrefixes(of: packet) {
            #expect(rtcpError { try RTCPPacket.parseCompound(prefix) } != nil, "prefix of \(prefix.count) bytes parsed")
            #expect(rtcpError { try RTCPPacket(parsing: prefix) } != nil)
        }
    }

    @Test("RFC 3550 §6.4.1: a corrupted length field never traps", arguments: validPackets)
    func corruptedLengths(_ packet: [UInt8]) {
        for length in [0, 1, 2, 3, 0x7FFF, 0xFFFF] {
            var bytes = packet
            bytes[2] = UInt8(length >> 8)
            bytes[3] = UInt8(length & 0xFF)
            _ = try? RTCPPacket.parseCompound(bytes)
            bytes.withUnsafeBytes { buffer in
                var iterator = RTCPCompoundIterator(buffer)
                while (try? iterator.next()) != nil {}
            }
        }
    }
}
