import StageWire
import Testing

/// `RTPHeader.copy(_:replacingExtensionsWith:value:into:)`: a forwarded packet gets one RFC 8285
/// one-byte element of the receiver's choosing in place of the sender's block.
@Suite struct RTPReplaceExtensionsTests {
    /// Runs the copy into a buffer of `capacity` bytes; the bytes written, or nil.
    private func copied(_ packet: [UInt8], id: UInt8 = 3, value: some RTPHeaderExtensionValue = RTPAbsSendTime(value: 0x12_3456),
                        capacity: Int = 2048) -> [UInt8]? {
        let destination = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 8)
        defer { destination.deallocate() }
        return packet.withUnsafeBytes { source in
            RTPHeader.copy(source, replacingExtensionsWith: id, value: value, into: destination)
                .map { Array(destination[..<$0]) }
        }
    }

    @Test("RFC 8285 §4.2: Chrome's abs-send-time and transport-cc elements give way to abs-send-time under the receiver's ID")
    func replacesTheSendersBlock() throws {
        let original = try RTPHeader.parse(MediaFixtures.chromeVP8Keyframe)
        let bytes = try #require(copied(MediaFixtures.chromeVP8Keyframe))
        #expect(Array(bytes[0..<12]) == Array(MediaFixtures.chromeVP8Keyframe[0..<12]))
        #expect(Array(bytes[12..<20]) == [0xBE, 0xDE, 0x00, 0x01, 0x32, 0x12, 0x34, 0x56])
        let (header, payload) = try RTPHeader.parse(bytes)
        #expect(try header.extensionValue(RTPAbsSendTime.self, id: 3, in: bytes.withUnsafeBytes { $0 })?.value == 0x12_3456)
        #expect(header.extensionValueRange(id: 2, in: bytes.withUnsafeBytes { $0 }) == nil)
        #expect(header.sequenceNumber == original.header.sequenceNumber && header.marker && header.payloadType == 96)
        #expect(Array(bytes[payload]) == Array(MediaFixtures.chromeVP8Keyframe[original.payload]))
        #expect(bytes.count == MediaFixtures.chromeVP8Keyframe.count - 4)
    }

    @Test("RFC 3550 §5.1: a packet without extensions keeps its CSRCs, payload and padding; X is set")
    func addsABlockAfterTheCSRCs() throws {
        // V=2 P=1 X=0 CC=2, PT 111, two CSRCs, a 3-byte payload and 2 bytes of padding.
        let packet: [UInt8] = [0xA2, 0x6F, 0x00, 0x07, 0, 0, 0, 9, 0, 0, 0, 5,
                               0, 0, 0, 1, 0, 0, 0, 2, 0xAA, 0xBB, 0xCC, 0x00, 0x02]
        let bytes = try #require(copied(packet, id: 14, value: RTPTransportSequenceNumber(value: 0x0102)))
        #expect(bytes == [0xB2, 0x6F, 0x00, 0x07, 0, 0, 0, 9, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 2,
                          0xBE, 0xDE, 0x00, 0x01, 0xE1, 0x01, 0x02, 0x00, 0xAA, 0xBB, 0xCC, 0x00, 0x02])
        let parsed = try RTPHeader.parse(bytes)
        #expect(parsed.header.csrcs == [1, 2] && parsed.header.padding)
        #expect(Array(bytes[parsed.payload]) == [0xAA, 0xBB, 0xCC])
    }

    @Test("RFC 8285 §4.2: two elements (abs-send-time, then a transport-wide sequence number) share one padded block")
    func writesTwoElements() throws {
        let destination = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 8)
        defer { destination.deallocate() }
        let written = MediaFixtures.chromeVP8Keyframe.withUnsafeBytes { source in
            RTPHeader.copy(source, replacingExtensionsWith: (id: 3, value: RTPAbsSendTime(value: 0x12_3456)),
                           and: (id: 5, value: RTPTransportSequenceNumber(value: 0x0102)), into: destination)
        }
        let bytes = Array(destination[..<(try #require(written))])
        #expect(Array(bytes[12..<24]) == [0xBE, 0xDE, 0x00, 0x02, 0x32, 0x12, 0x34, 0x56, 0x51, 0x01, 0x02, 0x00])
        let original = try RTPHeader.parse(MediaFixtures.chromeVP8Keyframe)
        let (header, payload) = try RTPHeader.parse(bytes)
        #expect(try header.extensionValue(RTPTransportSequenceNumber.self, id: 5, in: bytes.withUnsafeBytes { $0 })?.value == 0x0102)
        #expect(Array(bytes[payload]) == Array(MediaFixtures.chromeVP8Keyframe[original.payload]))
    }

    @Test("Refused: two elements under one ID, or one outside 1…14")
    func refusesTwoElementsThatCannotBeTold() {
        let destination = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 8)
        defer { destination.deallocate() }
        for (first, second) in [(UInt8(4), UInt8(4)), (4, 15), (0, 4)] {
            let written = MediaFixtures.chromeVP8Keyframe.withUnsafeBytes { source in
                RTPHeader.copy(source, replacingExtensionsWith: (id: first, value: RTPAbsSendTime(value: 1)),
                               and: (id: second, value: RTPTransportSequenceNumber(value: 2)), into: destination)
            }
            #expect(written == nil, "IDs \(first) and \(second)")
        }
    }

    @Test("Refused: what its header's lengths do not fit, IDs outside 1…14, a destination too small", arguments: [
        ("shorter than the fixed header", Array(MediaFixtures.chromeVP8Keyframe.prefix(11)), UInt8(3), 2048),
        ("X set, extension header cut", Array(MediaFixtures.chromeVP8Keyframe.prefix(14)), 3, 2048),
        ("extension longer than the packet", Array(MediaFixtures.chromeVP8Keyframe.prefix(22)), 3, 2048),
        ("CSRCs longer than the packet", [0x8F, 0x60, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2], 3, 2048),
        ("ID 0 (padding, RFC 8285 §4.2)", MediaFixtures.chromeVP8Keyframe, 0, 2048),
        ("ID 15 (reserved, RFC 8285 §4.2)", MediaFixtures.chromeVP8Keyframe, 15, 2048),
        ("destination one byte short", MediaFixtures.chromeVP8Keyframe, 3, MediaFixtures.chromeVP8Keyframe.count - 5),
    ] as [(String, [UInt8], UInt8, Int)])
    func refuses(_ what: String, packet: [UInt8], id: UInt8, capacity: Int) {
        #expect(copied(packet, id: id, capacity: capacity) == nil, "\(what)")
    }

    @Test("Every strict prefix of a packet is refused or copied within bounds, never read past")
    func prefixes() {
        for prefix in mediaPrefixes(of: MediaFixtures.chromeVP8Keyframe) {
            if let bytes = copied(prefix) { #expect(bytes.count <= prefix.count + 8) }
        }
    }
}
