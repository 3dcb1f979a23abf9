import StageWire
import Testing

/// Malformed VP8 payloads: each must throw its named error, never trap.
@Suite struct VP8ErrorHandlingTests {
    /// Every optional field present: X, I with M (two octets), L, T/K.
    static let full: [UInt8] = [0x90, 0xF0, 0x80, 0x01, 0x07, 0x5F]

    static let truncations: [MediaMalformedCase<VP8Error>] = [
        MediaMalformedCase(name: "RFC 7741 §4.2: empty payload", bytes: [], error: .emptyPayload),
        MediaMalformedCase(name: "RFC 7741 §4.2: X set, extension octet missing", bytes: Array(full.prefix(1)),
            error: .descriptorTooShort(needed: 2, got: 1)),
        MediaMalformedCase(name: "RFC 7741 §4.2: I set, PictureID missing", bytes: Array(full.prefix(2)),
            error: .descriptorTooShort(needed: 3, got: 2)),
        MediaMalformedCase(name: "RFC 7741 §4.2: M set, second PictureID octet missing", bytes: Array(full.prefix(3)),
            error: .descriptorTooShort(needed: 4, got: 3)),
        MediaMalformedCase(name: "RFC 7741 §4.2: L set, TL0PICIDX missing", bytes: Array(full.prefix(4)),
            error: .descriptorTooShort(needed: 5, got: 4)),
        MediaMalformedCase(name: "RFC 7741 §4.2: T/K set, TID/KEYIDX octet missing", bytes: Array(full.prefix(5)),
            error: .descriptorTooShort(needed: 6, got: 5)),
        MediaMalformedCase(name: "RFC 7741 §4.2: 7-bit PictureID missing after X and I", bytes: [0x80, 0x80],
            error: .descriptorTooShort(needed: 3, got: 2)),
    ]

    @Test(arguments: truncations)
    func descriptorTruncatedAtEachExtensionByte(_ testCase: MediaMalformedCase<VP8Error>) {
        #expect(vp8Error { try VP8PayloadDescriptor.parse(testCase.bytes) } == testCase.error)
        var bytes = testCase.bytes
        bytes.withUnsafeMutableBytes { buffer in
            #expect(vp8Error { try VP8PayloadDescriptor.rewrite(pictureID: 1, tl0PicIdx: 1, in: buffer) } == testCase.error)
            #expect(!VP8PayloadDescriptor.isKeyframe(UnsafeRawBufferPointer(buffer)))
        }
    }

    @Test("RFC 7741 §4.2: a descriptor with nothing after it is not a VP8 packet")
    func noFrameData() {
        #expect(vp8Error(Self.full) { buffer in try VP8PayloadDescriptor.parsePacket(buffer) } == .noFrameData)
    }

    @Test("RFC 7741 §4.3: the payload header needs three octets")
    func payloadHeaderTooShort() {
        let payload: [UInt8] = [0x10, 0x10, 0x02]
        #expect(vp8Error(payload) { buffer in try VP8PayloadDescriptor.keyframeDimensions(buffer) }
            == .payloadHeaderTooShort(needed: 3, got: 2))
    }

    @Test("RFC 6386 §9.1: a keyframe needs its start code and both dimensions")
    func keyframeHeaderErrors() {
        let short: [UInt8] = [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x80, 0x02, 0xE0]
        #expect(vp8Error(short) { buffer in try VP8KeyframeDimensions(parsing: buffer) }
            == .keyframeHeaderTooShort(needed: 10, got: 9))
        let badCode: [UInt8] = [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2B, 0x80, 0x02, 0xE0, 0x01]
        #expect(vp8Error(badCode) { buffer in try VP8KeyframeDimensions(parsing: buffer) } == .badStartCode(0x9D012B))
        // P=0 with a cut header: still flagged a keyframe by the tag, but its size is unknown.
        let cut: [UInt8] = [0x10, 0x10, 0x02, 0x00, 0x9D]
        cut.withUnsafeBytes { buffer in
            #expect(VP8PayloadDescriptor.isKeyframe(buffer))
            #expect(vp8Error { try VP8PayloadDescriptor.keyframeDimensions(buffer) } == .keyframeHeaderTooShort(needed: 10, got: 4))
        }
    }

    @Test("VP8Error: descriptions name the field")
    func descriptions() {
        #expect(VP8Error.descriptorTooShort(needed: 4, got: 3).description == "VP8 payload descriptor too short: needed 4 bytes, got 3")
        #expect(VP8Error.badStartCode(0x9D012B).description.contains("9d012b"))
    }
}
