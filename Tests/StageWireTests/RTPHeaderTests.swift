import StageWire
import Testing

/// RFC 3550 §5.1 fixed header, CSRCs, padding and §5.3.1 extension location.
@Suite struct RTPHeaderTests {
    @Test("RFC 3550 §5.1: captured Chrome packet, every header field")
    func capturedChromeHeader() throws {
        let bytes = MediaFixtures.chromeCapturedHeader
        let (header, payload) = try RTPHeader.parse(bytes)
        #expect(!header.padding)
        #expect(!header.marker)
        #expect(header.payloadType == 45)
        #expect(header.sequenceNumber == 6751)
        #expect(header.timestamp == 3_557_360_969)
        #expect(header.ssrc == 0xF7B1_6E83)
        #expect(header.csrcs.isEmpty)
        #expect(header.extensionProfile == 0xBEDE)
        #expect(header.extensionForm == .oneByte)
        #expect(header.extensionLength == 12)
        #expect(header.extensionRange == 16..<28)
        #expect(header.marshalSize == 28)
        #expect(payload == 28..<28)
    }

    @Test("RFC 3550 §5.1: Chrome-layout VP8 keyframe packet, header, extensions and payload")
    func chromeVP8Packet() throws {
        let bytes = MediaFixtures.chromeVP8Keyframe
        try bytes.withUnsafeBytes { buffer throws in
            let (header, payload) = try RTPHeader.parse(buffer)
            #expect(header.marker && header.payloadType == 96)
            #expect(header.sequenceNumber == 6752 && header.timestamp == 3_557_360_969 && header.ssrc == 0xF7B1_6E83)
            #expect(payload == 24..<bytes.count)
            #expect(Array(header.extensions(in: buffer)) == [
                RTPExtensionElement(id: 2, valueRange: 17..<20),
                RTPExtensionElement(id: 4, valueRange: 21..<23),
            ])
            #expect(try header.extensionValue(RTPAbsSendTime.self, id: 2, in: buffer) == RTPAbsSendTime(value: 0xF34350))
            #expect(try header.extensionValue(RTPTransportSequenceNumber.self, id: 4, in: buffer)?.value == 156)
            #expect(try header.extensionValue(RTPAudioLevel.self, id: 1, in: buffer) == nil)

            let vp8 = UnsafeRawBufferPointer(rebasing: buffer[payload])
            let (descriptor, size) = try VP8PayloadDescriptor.parse(vp8)
            #expect(size == 6 && descriptor.pictureID == 0x2BCD && descriptor.tl0PicIdx == 5)
            #expect(VP8PayloadDescriptor.isKeyframe(vp8))
            #expect(try VP8PayloadDescriptor.keyframeDimensions(vp8) == VP8KeyframeDimensions(width: 640, height: 480))
        }
    }

    @Test("RFC 3550 §5.1: CSRC list of CC identifiers follows the fixed header")
    func csrcList() throws {
        let bytes: [UInt8] = [
            0x82, 0x08, 0x00, 0x01,  // V=2 CC=2 | PT=8 | seq 1
            0x00, 0x00, 0x00, 0xA0,  // timestamp 160
            0x11, 0x22, 0x33, 0x44,  // SSRC
            0x00, 0x00, 0x00, 0x0A,  // CSRC 10
            0x00, 0x00, 0x00, 0x0B,  // CSRC 11
            0xD5, 0xD5,  //             payload
        ]
        let (header, payload) = try RTPHeader.parse(bytes)
        #expect(Array(header.csrcs) == [10, 11])
        #expect(header.extensionHeaderOffset == 20 && !header.hasExtension)
        #expect(payload == 20..<22)
        #expect(header.serialized() == Array(bytes.prefix(20)))
    }

    @Test("RFC 3550 §5.1: the P bit's last octet counts the padding, which the payload excludes")
    func padding() throws {
        let bytes: [UInt8] = [
            0xA0, 0x60, 0x00, 0x07,  // V=2 P=1 | PT=96 | seq 7
            0x00, 0x00, 0x00, 0x00,  // timestamp
            0x00, 0x00, 0x00, 0x01,  // SSRC 1
            0xAA, 0xBB,  //             payload
            0x00, 0x00, 0x03,  //       padding, count 3
        ]
        let (header, payload) = try RTPHeader.parse(bytes)
        #expect(header.padding)
        #expect(payload == 12..<14)
        let packet = try RTPPacket(parsing: bytes)
        #expect(packet.payload == [0xAA, 0xBB] && packet.paddingLength == 3)
        #expect(packet.serialized() == bytes)
    }

    @Test("RFC 3550 §5.1: a padding-only packet (bandwidth probe) has an empty payload")
    func paddingOnly() throws {
        var bytes: [UInt8] = [0xA0, 0x60, 0x00, 0x07, 0, 0, 0, 0, 0, 0, 0, 1]
        bytes += [UInt8](repeating: 0, count: 254) + [255]
        let (header, payload) = try RTPHeader.parse(bytes)
        #expect(header.padding && payload == 12..<12)
    }

    static let roundTripHeaders: [RTPHeader] = [
        RTPHeader(payloadType: 111, sequenceNumber: 0, timestamp: 0, ssrc: 0),
        RTPHeader(marker: true, payloadType: 96, sequenceNumber: 0xFFFF, timestamp: 0xFFFF_FFFF, ssrc: 0xFFFF_FFFF),
        RTPHeader(payloadType: 127, sequenceNumber: 1, timestamp: 2, ssrc: 3, csrcs: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]),
        RTPHeader(payloadType: 96, sequenceNumber: 9, timestamp: 9, ssrc: 9, extensionProfile: 0xBEDE, extensionLength: 8),
        RTPHeader(payloadType: 96, sequenceNumber: 9, timestamp: 9, ssrc: 9, csrcs: [7], extensionProfile: 0x1234, extensionLength: 0),
    ]

    @Test("RFC 3550 §5.1: serialize then parse gives the same header", arguments: roundTripHeaders)
    func roundTrip(_ header: RTPHeader) throws {
        var bytes = header.serialized()
        #expect(bytes.count == header.marshalSize)
        bytes += [1, 2, 3]
        let (parsed, payload) = try RTPHeader.parse(bytes)
        #expect(parsed == header)
        #expect(payload == header.marshalSize..<bytes.count)
    }

    @Test("RFC 3550 §5.3.1: extension data is copied from the buffer given, zero-filled when short")
    func serializeExtensionBody() {
        let header = RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3, extensionProfile: 0xBEDE, extensionLength: 8)
        var out: [UInt8] = []
        header.serialize(into: &out, extensionBody: [0x10, 0xFF])
        #expect(out == [0x90, 0x60, 0x00, 0x01, 0, 0, 0, 2, 0, 0, 0, 3, 0xBE, 0xDE, 0x00, 0x02, 0x10, 0xFF, 0, 0, 0, 0, 0, 0])
    }

    @Test("RFC 3550 §5.1: a CSRC list holds at most 15 sources")
    func csrcCapacity() {
        #expect(rtpError { try RTPCSRCList(Array(0..<16)) } == .tooManyCSRCs(16))
        var list = RTPCSRCList()
        for source in 0..<15 {
            let added = list.append(UInt32(source))
            #expect(added)
        }
        let overflowed = !list.append(99)
        #expect(overflowed)
        #expect(list.count == 15 && list.last == 14)
        list.removeAll()
        #expect(list == [])
    }
}
