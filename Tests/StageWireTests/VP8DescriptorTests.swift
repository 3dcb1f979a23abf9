import StageWire
import Testing

/// RFC 7741 §4.2 payload descriptor, §4.3 payload header, and the SFU's in-place rewrites.
@Suite struct VP8DescriptorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var descriptor: VP8PayloadDescriptor
        /// Whether writing gives back the same bytes (not when ignored bits were set).
        var exact = true
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "RFC 7741 §4.2: only the required octet, start of partition 0", bytes: [0x10],
            descriptor: VP8PayloadDescriptor(startOfPartition: true)),
        Case(name: "RFC 7741 §4.2: non-reference frame, continuation of partition 3", bytes: [0x23],
            descriptor: VP8PayloadDescriptor(nonReferenceFrame: true, startOfPartition: false, partitionIndex: 3)),
        Case(name: "RFC 7741 §4.2: 7-bit PictureID (M=0)", bytes: [0x90, 0x80, 0x2A],
            descriptor: VP8PayloadDescriptor(startOfPartition: true, pictureID: 42, longPictureID: false)),
        Case(
            name: "RFC 7741 §4.2: Chrome simulcast layout — 15-bit PictureID, TL0PICIDX, TID with Y",
            bytes: [
                0x90,  // X=1 S=1 PID=0
                0xE0,  // I L T
                0xAB, 0xCD,  // M=1, PictureID 0x2BCD
                0x05,  // TL0PICIDX
                0x20,  // TID=0 Y=1
            ],
            descriptor: VP8PayloadDescriptor(
                startOfPartition: true, pictureID: 0x2BCD, tl0PicIdx: 5, temporalLayerID: 0, layerSync: true)),
        Case(name: "RFC 7741 §4.2: K without T reads only KEYIDX", bytes: [0x80, 0x10, 0xDF],
            descriptor: VP8PayloadDescriptor(startOfPartition: false, keyIndex: 31), exact: false),
        Case(name: "RFC 7741 §4.2: T without K reads TID and Y only", bytes: [0x80, 0x20, 0xBF],
            descriptor: VP8PayloadDescriptor(startOfPartition: false, temporalLayerID: 2, layerSync: true), exact: false),
        Case(
            name: "RFC 7741 §4.2: every optional field", bytes: [0x90, 0xF0, 0x80, 0x01, 0x07, 0x5F],
            descriptor: VP8PayloadDescriptor(
                startOfPartition: true, pictureID: 1, tl0PicIdx: 7, temporalLayerID: 1, layerSync: false, keyIndex: 31)),
    ]

    @Test(arguments: cases)
    func parseAndSerialize(_ testCase: Case) throws {
        let (descriptor, size) = try VP8PayloadDescriptor.parse(testCase.bytes + [0x00])
        #expect(descriptor == testCase.descriptor)
        #expect(size == testCase.bytes.count && descriptor.marshalSize <= size)
        let written = descriptor.serialized()
        #expect(try VP8PayloadDescriptor.parse(written).descriptor == descriptor)
        if testCase.exact { #expect(written == testCase.bytes) }
    }

    @Test("RFC 7741 §4.2: X with no optional field set is one octet once written")
    func emptyExtension() throws {
        let (descriptor, size) = try VP8PayloadDescriptor.parse([0x90, 0x00, 0xAA])
        #expect(size == 2 && descriptor == VP8PayloadDescriptor(startOfPartition: true))
        #expect(descriptor.serialized() == [0x10])
    }

    @Test("RFC 7741 §4.3: keyframe start — S=1, PID=0, P=0 — and its 14-bit size")
    func keyframe() throws {
        let packet = MediaFixtures.chromeVP8Keyframe
        try packet.withUnsafeBytes { buffer throws in
            let payload = UnsafeRawBufferPointer(rebasing: buffer[24...])
            #expect(VP8PayloadDescriptor.isKeyframe(payload))
            let header = try VP8PayloadHeader(parsing: UnsafeRawBufferPointer(rebasing: payload[6...]))
            #expect(header.isKeyframe && header.showFrame && header.version == 0 && header.firstPartitionSize == 16)
            #expect(try VP8PayloadDescriptor.keyframeDimensions(payload) == VP8KeyframeDimensions(width: 640, height: 480))
            #expect(try VP8PayloadDescriptor.parsePacket(payload).frame == 6..<payload.count)
        }
    }

    @Test("RFC 6386 §9.1: the two top bits of each dimension are the scale")
    func scaledDimensions() throws {
        let frame: [UInt8] = [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x80, 0x42, 0xE0, 0xC1]
        let size = try frame.withUnsafeBytes { try VP8KeyframeDimensions(parsing: $0) }
        #expect(size == VP8KeyframeDimensions(width: 640, height: 480, horizontalScale: 1, verticalScale: 3))
    }

    @Test("RFC 7741 §4.3: interframes and later partitions are not keyframes", arguments: [
        [UInt8](arrayLiteral: 0x10, 0x11, 0x02, 0x00),  // S=1 PID=0 but P=1: interframe
        [0x00, 0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x80, 0x02, 0xE0, 0x01],  // S=0: not a partition start
        [0x11, 0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x80, 0x02, 0xE0, 0x01],  // S=1 but PID=1
    ])
    func notKeyframes(_ payload: [UInt8]) throws {
        try payload.withUnsafeBytes { buffer throws in
            #expect(!VP8PayloadDescriptor.isKeyframe(buffer))
            #expect(try VP8PayloadDescriptor.keyframeDimensions(buffer) == nil)
        }
    }

    @Test("RFC 7741 §4.2: PictureID and TL0PICIDX rewritten in place, in the packet's width")
    func rewriteInPlace() throws {
        var long: [UInt8] = [0x90, 0xE0, 0xAB, 0xCD, 0x05, 0x20, 0x10]
        try long.withUnsafeMutableBytes { buffer throws in
            try VP8PayloadDescriptor.setPictureID(0x8001, in: buffer)  // 15 bits: 0x0001
            try VP8PayloadDescriptor.setTL0PicIdx(0xFE, in: buffer)
        }
        #expect(long == [0x90, 0xE0, 0x80, 0x01, 0xFE, 0x20, 0x10])

        var short: [UInt8] = [0x90, 0xC0, 0x2A, 0x09, 0x10]
        let size = try short.withUnsafeMutableBytes { buffer throws in
            try VP8PayloadDescriptor.rewrite(pictureID: 200, tl0PicIdx: 10, in: buffer)  // 7 bits: 200 & 0x7F = 72
        }
        #expect(size == 4 && short == [0x90, 0xC0, 0x48, 0x0A, 0x10])

        var plain: [UInt8] = [0x10, 0x00]
        plain.withUnsafeMutableBytes { buffer in
            #expect(vp8Error { try VP8PayloadDescriptor.setPictureID(1, in: buffer) } == .pictureIDAbsent)
            #expect(vp8Error { try VP8PayloadDescriptor.setTL0PicIdx(1, in: buffer) } == .tl0PicIdxAbsent)
            #expect(vp8Error { try VP8PayloadDescriptor.rewrite(pictureID: 1, tl0PicIdx: 1, in: buffer) } == nil)
        }
        #expect(plain == [0x10, 0x00])
    }
}
