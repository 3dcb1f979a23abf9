import StageWire
import Testing

/// The SFU's in-place rewrites (RFC 3550 §5.1 fields, RFC 8285 elements) and the adding of
/// extension elements to a packet held in an array.
@Suite struct RTPRewriteTests {
    @Test("RFC 3550 §5.1: seq, timestamp, SSRC, PT and M rewritten in place, nothing else moves")
    func fixedFieldsInPlace() throws {
        var bytes = MediaFixtures.chromeVP8Keyframe
        let original = try RTPHeader.parse(bytes)
        try bytes.withUnsafeMutableBytes { buffer throws in
            try RTPHeader.rewrite(sequenceNumber: 0xFFFF, timestamp: 0x0102_0304, ssrc: 0xCAFE_BABE, in: buffer)
            try RTPHeader.setPayloadType(100, in: buffer)
            try RTPHeader.setMarker(false, in: buffer)
        }
        #expect(Array(bytes[0..<12]) == [0x90, 0x64, 0xFF, 0xFF, 0x01, 0x02, 0x03, 0x04, 0xCA, 0xFE, 0xBA, 0xBE])
        #expect(bytes[12...] == MediaFixtures.chromeVP8Keyframe[12...])
        let (header, payload) = try RTPHeader.parse(bytes)
        var expected = original.header
        expected.sequenceNumber = 0xFFFF
        expected.timestamp = 0x0102_0304
        expected.ssrc = 0xCAFE_BABE
        expected.payloadType = 100
        expected.marker = false
        #expect(header == expected && payload == original.payload)

        try bytes.withUnsafeMutableBytes { buffer throws in
            try RTPHeader.setSequenceNumber(7, in: buffer)
            try RTPHeader.setTimestamp(8, in: buffer)
            try RTPHeader.setSSRC(9, in: buffer)
            try RTPHeader.setMarker(true, in: buffer)
        }
        let again = try RTPHeader.parse(bytes).header
        #expect(again.sequenceNumber == 7 && again.timestamp == 8 && again.ssrc == 9 && again.marker && again.payloadType == 100)
    }

    @Test("RFC 3550 §5.1: rewrites refuse buffers shorter than the fixed header and PTs over 127")
    func rewriteErrors() {
        var short: [UInt8] = [0x80, 0x60, 0, 1, 0, 0, 0, 0, 0, 0, 0]
        short.withUnsafeMutableBytes { buffer in
            #expect(rtpError { try RTPHeader.setSequenceNumber(1, in: buffer) } == .headerTooShort(needed: 12, got: 11))
            #expect(rtpError { try RTPHeader.setSSRC(1, in: buffer) } == .headerTooShort(needed: 12, got: 11))
            #expect(rtpError { try RTPHeader.setPayloadType(128, in: buffer) } == .invalidPayloadType(128))
        }
    }

    @Test("RFC 8285 §4.2: a transport-wide sequence number is rewritten in place")
    func rewriteExtensionInPlace() throws {
        var bytes = MediaFixtures.chromeVP8Keyframe
        let header = try RTPHeader.parse(bytes).header
        try bytes.withUnsafeMutableBytes { buffer throws in
            try header.rewriteExtension(id: 4, with: RTPTransportSequenceNumber(value: 0xABCD), in: buffer)
            try header.rewriteExtension(id: 2, bytes: [1, 2, 3], in: buffer)
        }
        #expect(Array(bytes[16..<24]) == [0x22, 0x01, 0x02, 0x03, 0x41, 0xAB, 0xCD, 0x00])
        bytes.withUnsafeMutableBytes { buffer in
            #expect(rtpError { try header.rewriteExtension(id: 9, bytes: [1], in: buffer) } == .extensionNotFound(id: 9))
            #expect(rtpError { try header.rewriteExtension(id: 4, bytes: [1], in: buffer) }
                == .extensionLengthMismatch(id: 4, expected: 1, got: 2))
        }
    }

    @Test("RFC 8285 §4.2: adding an element to a packet without extensions sets X and keeps payload and padding")
    func addExtensionToPlainPacket() throws {
        var bytes: [UInt8] = [
            0xA0, 0x60, 0x00, 0x05, 0, 0, 0, 1, 0, 0, 0, 2,  // P=1, no X
            0xDE, 0xAD,  // payload
            0x00, 0x02,  // padding, count 2
        ]
        try RTPHeader.setExtension(id: 4, RTPTransportSequenceNumber(value: 0x0102), in: &bytes)
        #expect(bytes == [
            0xB0, 0x60, 0x00, 0x05, 0, 0, 0, 1, 0, 0, 0, 2,  // P=1 X=1
            0xBE, 0xDE, 0x00, 0x01,  // one-byte form, 1 word
            0x41, 0x01, 0x02, 0x00,  // ID 4 L=1 | padding
            0xDE, 0xAD, 0x00, 0x02,
        ])
    }

    @Test("RFC 8285 §4.2: same length rewrites in place, a new length or ID rebuilds the block")
    func setExtensionReplacesAndGrows() throws {
        var bytes = MediaFixtures.chromeVP8Keyframe
        let vp8 = Array(bytes[24...])
        try RTPHeader.setExtension(id: 4, bytes: [0x00, 0x9D], in: &bytes)
        #expect(bytes.count == MediaFixtures.chromeVP8Keyframe.count && bytes[22] == 0x9D)

        try RTPHeader.setExtension(id: 9, RTPIdentifierExtension(text: "video"), in: &bytes)
        try RTPHeader.setExtension(id: 2, bytes: [0xAA], in: &bytes)  // shorter: rebuilt
        let (header, payload) = try RTPHeader.parse(bytes)
        #expect(Array(bytes[payload]) == vp8)
        try bytes.withUnsafeBytes { buffer throws in
            #expect(header.extensions(in: buffer).map(\.id) == [2, 4, 9])
            #expect(try header.extensionValue(RTPIdentifierExtension.self, id: 9, in: buffer)?.text == "video")
            #expect(header.extensionValueRange(id: 2, in: buffer).map { Array(buffer[$0]) } == [0xAA])
        }
    }

    @Test("RFC 8285 §4.3: a value longer than 16 bytes moves the packet to the two-byte form")
    func setExtensionPromotesToTwoByte() throws {
        var bytes = MediaFixtures.chromeCapturedHeader
        let long = [UInt8](repeating: 0x61, count: 20)
        try RTPHeader.setExtension(id: 10, bytes: long, in: &bytes)
        let header = try RTPHeader.parse(bytes).header
        #expect(header.extensionForm == .twoByte(appBits: 0))
        bytes.withUnsafeBytes { buffer in
            #expect(header.extensions(in: buffer).map(\.id) == [2, 4, 13, 10])
            #expect(header.extensionValueRange(id: 10, in: buffer).map { Array(buffer[$0]) } == long)
        }
    }

    @Test("RFC 3550 §5.3.1: a non-RFC 8285 extension profile cannot take elements")
    func setExtensionOtherProfile() {
        var bytes: [UInt8] = [0x90, 0x60, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0x12, 0x34, 0x00, 0x00]
        #expect(rtpError { try RTPHeader.setExtension(id: 1, bytes: [1], in: &bytes) } == .unsupportedExtensionProfile(0x1234))
    }

    @Test("RFC 3550 §5.1: the owned packet builds, adds extensions and round-trips")
    func ownedPacket() throws {
        var packet = RTPPacket(
            header: RTPHeader(marker: true, payloadType: 111, sequenceNumber: 100, timestamp: 960, ssrc: 0xAABB_CCDD),
            payload: [0xFC, 0xFF, 0xFE], paddingLength: 4)
        try packet.setExtension(id: 1, RTPAudioLevel(voiceActivity: true, level: 42))
        try packet.setExtension(id: 3, RTPIdentifierExtension(text: "0"))
        #expect(packet.header.extensionProfile == 0xBEDE && packet.header.padding)
        #expect(try packet.extensionValue(RTPAudioLevel.self, id: 1) == RTPAudioLevel(voiceActivity: true, level: 42))
        let bytes = packet.serialized()
        #expect(bytes.count == packet.marshalSize)
        #expect(bytes == [
            0xB0, 0xEF, 0x00, 0x64, 0x00, 0x00, 0x03, 0xC0, 0xAA, 0xBB, 0xCC, 0xDD,  // P X | M PT=111 | 100 | 960
            0xBE, 0xDE, 0x00, 0x01,
            0x10, 0xAA, 0x30, 0x30,  // ID 1 L=0: V=1 level 42 | ID 3 L=0: "0"
            0xFC, 0xFF, 0xFE,  //       payload
            0x00, 0x00, 0x00, 0x04,  // padding, count 4
        ])
        #expect(try RTPPacket(parsing: bytes) == packet)
    }
}
