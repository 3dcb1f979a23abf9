import StageWire
import Testing

/// Malformed RTP bytes (pion's `TestUnmarshal_ErrorHandling`): each must throw its named error,
/// and no truncation of a valid packet may trap.
@Suite struct RTPErrorHandlingTests {
    static let cases: [MediaMalformedCase<RTPError>] = [
        MediaMalformedCase(
            name: "RFC 3550 §5.1: fewer than 12 bytes is rejected",
            bytes: [0x80, 0x60, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00],
            error: .headerTooShort(needed: 12, got: 11)),
        MediaMalformedCase(
            name: "RFC 3550 §5.1: version 1 is rejected",
            bytes: [0x40, 0x60, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01],
            error: .badVersion(1)),
        MediaMalformedCase(
            name: "RFC 3550 §5.1: version 3 is rejected",
            bytes: [0xC0, 0x60, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01],
            error: .badVersion(3)),
        MediaMalformedCase(
            name: "RFC 3550 §5.1: CSRC count beyond the packet length is rejected",
            bytes: [
                0x83, 0x60, 0x00, 0x01,  // CC=3: 12 more bytes promised
                0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
                0x00, 0x00, 0x00, 0x0A,  // only one CSRC present
            ],
            error: .csrcListTooShort(needed: 24, got: 16)),
        MediaMalformedCase(
            name: "RFC 3550 §5.3.1: X set without the 4-byte extension header is rejected",
            bytes: [0x90, 0x60, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xBE, 0xDE],
            error: .extensionHeaderTooShort(needed: 16, got: 14)),
        MediaMalformedCase(
            name: "RFC 3550 §5.3.1: extension length beyond the buffer is rejected",
            bytes: [
                0x90, 0x60, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
                0xBE, 0xDE, 0x00, 0x02,  // 2 words = 8 bytes promised
                0x10, 0xAA, 0x00, 0x00,  // 4 present
            ],
            error: .extensionTooShort(needed: 24, got: 20)),
        MediaMalformedCase(
            name: "RFC 3550 §5.1: padding count larger than payload is rejected",
            bytes: [
                0xA0, 0x60, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
                0xAA, 0x00, 0x05,  // 3 bytes after the header, count says 5
            ],
            error: .paddingExceedsPayload(padding: 5, available: 3)),
        MediaMalformedCase(
            name: "RFC 3550 §5.1: padding count zero is rejected",
            bytes: [0xA0, 0x60, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xAA, 0x00],
            error: .paddingCountZero),
        MediaMalformedCase(
            name: "RFC 3550 §5.1: P set with nothing after the header is rejected",
            bytes: [0xA0, 0x60, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01],
            error: .paddingExceedsPayload(padding: 1, available: 0)),
        MediaMalformedCase(
            name: "RFC 3550 §5.1: padding may not reach back into the extension",
            bytes: [
                0xB0, 0x60, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
                0xBE, 0xDE, 0x00, 0x01, 0x10, 0xAA, 0x00, 0x00,
                0x00, 0x03,  // two bytes after the header, count 3
            ],
            error: .paddingExceedsPayload(padding: 3, available: 2)),
    ]

    @Test(arguments: cases)
    func malformed(_ testCase: MediaMalformedCase<RTPError>) {
        #expect(rtpError { try RTPHeader.parse(testCase.bytes) } == testCase.error)
        #expect(rtpError { try RTPPacket(parsing: testCase.bytes) } == testCase.error)
    }

    @Test("RFC 3550 §5.1: every truncation inside the header throws, none traps", arguments: [
        MediaFixtures.chromeCapturedHeader, MediaFixtures.chromeVP8Keyframe,
        [0x82, 0x08, 0x00, 0x01, 0, 0, 0, 0xA0, 0x11, 0x22, 0x33, 0x44, 0, 0, 0, 10, 0, 0, 0, 11, 0xD5],
    ])
    func truncations(_ packet: [UInt8]) throws {
        let headerSize = try RTPHeader.parse(packet).header.marshalSize
        for prefix in mediaPrefixes(of: packet) {
            let error = rtpError { try RTPHeader.parse(prefix) }
            if prefix.count < headerSize {
                #expect(error != nil, "prefix of \(prefix.count) bytes parsed")
            } else {
                #expect(error == nil, "payload truncated to \(prefix.count) bytes failed")
            }
            // Walking extensions over a truncated buffer must not trap either.
            if let (header, _) = try? RTPHeader.parse(prefix) {
                prefix.withUnsafeBytes { buffer in _ = Array(header.extensions(in: buffer)) }
            }
        }
    }

    @Test("RFC 3550 §5.1: an empty buffer is a short header")
    func empty() {
        #expect(rtpError { try RTPHeader.parse(UnsafeRawBufferPointer(start: nil, count: 0)) } == .headerTooShort(needed: 12, got: 0))
    }

    @Test("RTPError: descriptions name the field")
    func descriptions() {
        #expect(RTPError.paddingExceedsPayload(padding: 5, available: 3).description == "RTP padding count 5 exceeds the 3 bytes after the header")
        #expect(RTPError.badVersion(1).description == "RTP version 1, expected 2")
        #expect(RTPError.unsupportedExtensionProfile(0x1234).description.contains("0x1234"))
    }
}
