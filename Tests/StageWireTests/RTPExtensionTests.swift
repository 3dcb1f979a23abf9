import StageWire
import Testing

/// RFC 8285 header extension elements: the one-byte and two-byte forms and their edge rules.
@Suite struct RTPExtensionTests {
    /// The 12-byte fixed header with X set, before an extension block.
    static let fixedHeader: [UInt8] = [
        0x90, 0x60, 0x00, 0x01,  // V=2 X=1 | PT=96 | seq 1
        0x00, 0x00, 0x00, 0x00,  // timestamp 0
        0x00, 0x00, 0x00, 0x01,  // SSRC 1
    ]

    func elements(_ bytes: [UInt8]) throws -> (elements: [RTPExtensionElement], values: [[UInt8]], malformed: Bool) {
        let header = try RTPHeader.parse(bytes).header
        return bytes.withUnsafeBytes { buffer in
            var iterator = header.extensions(in: buffer)
            var found: [RTPExtensionElement] = []
            while let element = iterator.next() { found.append(element) }
            return (found, found.map { Array(bytes[$0.valueRange]) }, iterator.isMalformed)
        }
    }

    @Test("RFC 8285 §4.2: one-byte example — L=0 is one byte, padding between elements is skipped")
    func rfc8285Section4_2Example() throws {
        let bytes = Self.fixedHeader + [
            0xBE, 0xDE, 0x00, 0x03,  // one-byte form, 3 words
            0x10, 0xAA, 0x21, 0xBB,  // ID 1 L=0: AA | ID 2 L=1: BB …
            0xBB, 0x00, 0x00, 0x33,  // … BB | pad | pad | ID 3 L=3
            0xCC, 0xCC, 0xCC, 0xCC,  // ID 3's 4 bytes
        ]
        let (elements, values, malformed) = try elements(bytes)
        #expect(elements.map(\.id) == [1, 2, 3])
        #expect(values == [[0xAA], [0xBB, 0xBB], [0xCC, 0xCC, 0xCC, 0xCC]])
        #expect(!malformed)
    }

    @Test("RFC 8285 §4.3: two-byte example — L=0 is an empty value, padding is skipped")
    func rfc8285Section4_3Example() throws {
        let bytes = Self.fixedHeader + [
            0x10, 0x00, 0x00, 0x03,  // two-byte form (appbits 0), 3 words
            0x01, 0x00, 0x02, 0x01,  // ID 1 L=0 | ID 2 L=1
            0xBB, 0x00, 0x03, 0x04,  // BB | pad | ID 3 L=4
            0xCC, 0xCC, 0xCC, 0xCC,
        ]
        let header = try RTPHeader.parse(bytes).header
        #expect(header.extensionForm == .twoByte(appBits: 0))
        let (elements, values, malformed) = try elements(bytes)
        #expect(elements.map(\.id) == [1, 2, 3])
        #expect(values == [[], [0xBB], [0xCC, 0xCC, 0xCC, 0xCC]])
        #expect(!malformed)
    }

    @Test("RFC 8285 §4.3: captured two-byte block with a 33-byte element")
    func capturedTwoByteBlock() throws {
        let bytes: [UInt8] = [
            0x90, 0x2D, 0x61, 0xC5, 0x95, 0x0A, 0x0F, 0xEE, 0x8D, 0x38, 0x14, 0xE5,  // PT 45, seq 25029
            0x10, 0x00, 0x00, 0x11,  // two-byte form, 17 words
            0x02, 0x03, 0x03, 0xF7, 0xAE,  // ID 2 L=3: abs-send-time
            0x04, 0x02, 0x00, 0x02,  // ID 4 L=2: transport-wide seq 2
            0x09, 0x01, 0x30,  //       ID 9 L=1: mid "0"
            0x03, 0x01, 0x00, 0x06, 0x01, 0x02,  // ID 3, ID 6
            0x07, 0x0D, 0x01, 0x00, 0x01, 0x00, 0x07, 0x00, 0x07, 0x00, 0x0A, 0x00, 0x00, 0x00, 0x00,
            0x0D, 0x21,  // ID 13 L=33
        ] + [UInt8](repeating: 0xF0, count: 33)
        let header = try RTPHeader.parse(bytes).header
        #expect(header.sequenceNumber == 25029 && header.extensionLength == 68)
        let (elements, _, malformed) = try elements(bytes)
        #expect(elements.map(\.id) == [2, 4, 9, 3, 6, 7, 13] && !malformed)
        try bytes.withUnsafeBytes { buffer throws in
            #expect(try header.extensionValue(RTPIdentifierExtension.self, id: 9, in: buffer)?.text == "0")
            #expect(try header.extensionValue(RTPTransportSequenceNumber.self, id: 4, in: buffer)?.value == 2)
            #expect(try header.extensionValue(RTPAbsSendTime.self, id: 2, in: buffer)?.value == 0x03F7AE)
        }
    }

    @Test("RFC 8285 §4.2: ID 15 stops parsing; elements before it still count")
    func reservedID15() throws {
        let bytes = Self.fixedHeader + [
            0xBE, 0xDE, 0x00, 0x02,
            0x10, 0xAA, 0xF0, 0x20,  // ID 1 | ID 15 → stop (the "ID 2" after it is ignored)
            0xBB, 0x00, 0x00, 0x00,
        ]
        let (elements, _, malformed) = try elements(bytes)
        #expect(elements.map(\.id) == [1] && !malformed)
    }

    @Test("RFC 8285 §4.2: an element longer than its block ends the walk and is flagged")
    func elementPastBlock() throws {
        let bytes = Self.fixedHeader + [
            0xBE, 0xDE, 0x00, 0x01,
            0x10, 0xAA, 0x2F, 0xBB,  // ID 1 | ID 2 L=15 needs 16 bytes, 1 left
            0x00, 0x00, 0x00, 0x00,  // payload, not extension
        ]
        let (elements, _, malformed) = try elements(bytes)
        #expect(elements.map(\.id) == [1] && malformed)
    }

    @Test("RFC 8285 §4.1: a profile that is neither 0xBEDE nor 0x100X yields no elements")
    func otherProfile() throws {
        let bytes = Self.fixedHeader + [0xAB, 0xCD, 0x00, 0x01, 0x10, 0xAA, 0x00, 0x00]
        let header = try RTPHeader.parse(bytes).header
        #expect(header.extensionForm == nil && header.extensionProfile == 0xABCD)
        #expect(try elements(bytes).elements.isEmpty)
    }

    @Test("webrtc.org abs-send-time: 6.18 fixed point from NTP bits 14–37")
    func absSendTime() throws {
        let ntp: UInt64 = 0x0000_0003_8000_0000  // 3.5 s
        let value = RTPAbsSendTime(ntpTime: ntp)
        #expect(value.value == 0xE0000 && value.seconds == 3.5)
        #expect(value.serialized() == [0x0E, 0x00, 0x00])
        #expect(try RTPAbsSendTime(parsing: [0x0E, 0x00, 0x00]) == value)
        #expect(rtpError { try RTPAbsSendTime(parsing: [0x0E, 0x00]) } == .extensionValueLength(expected: 3, got: 2))
    }

    @Test("RFC 6464 §3: V bit and 7-bit level in −dBov")
    func audioLevel() throws {
        #expect(try RTPAudioLevel(parsing: [0x9E]) == RTPAudioLevel(voiceActivity: true, level: 30))
        #expect(RTPAudioLevel(voiceActivity: false, level: 127).serialized() == [0x7F])
        #expect(rtpError { try RTPAudioLevel(parsing: [0x9E, 0x00]) } == .extensionValueLength(expected: 1, got: 2))
    }

    @Test("draft-holmer-rmcat-transport-wide-cc-extensions-01 §2: 16-bit transport-wide sequence number")
    func transportSequenceNumber() throws {
        #expect(try RTPTransportSequenceNumber(parsing: [0xFF, 0xFE]).value == 0xFFFE)
        #expect(RTPTransportSequenceNumber(value: 0x0102).serialized() == [0x01, 0x02])
        #expect(rtpError { try RTPTransportSequenceNumber(parsing: [1]) } == .extensionValueLength(expected: 2, got: 1))
    }

    @Test("RFC 8852 §3 / RFC 8843 §14: mid and rid are ASCII; trailing NULs are tolerated")
    func identifiers() throws {
        #expect(try RTPIdentifierExtension(parsing: Array("q".utf8)).text == "q")
        #expect(try RTPIdentifierExtension(parsing: [0x68, 0x00, 0x00]).text == "h")
        #expect(try RTPIdentifierExtension(text: "audio-1").serialized() == Array("audio-1".utf8))
        #expect(rtpError { try RTPIdentifierExtension(parsing: [0x00, 0x61]) } == .invalidExtensionText)
        #expect(rtpError { try RTPIdentifierExtension(parsing: [0x61, 0x20]) } == .invalidExtensionText)
        #expect(rtpError { try RTPIdentifierExtension(parsing: [0xC3, 0xA9]) } == .invalidExtensionText)
        #expect(rtpError { try RTPIdentifierExtension(text: "") } == .invalidExtensionText)
    }

    @Test("RFC 8285 §4.2, §4.3: the builder pads to 32 bits and moves to two-byte when it must")
    func builderForms() throws {
        var builder = RTPExtensionBlockBuilder()
        try builder.set(id: 2, RTPAbsSendTime(value: 0x123456))
        try builder.set(id: 4, RTPTransportSequenceNumber(value: 7))
        #expect(builder.form == .oneByte)
        #expect(builder.body() == [0x22, 0x12, 0x34, 0x56, 0x41, 0x00, 0x07, 0x00])
        try builder.set(id: 4, RTPTransportSequenceNumber(value: 8))
        #expect(builder.ids == [2, 4] && builder.value(id: 4) == [0x00, 0x08])
        try builder.set(id: 20, value: [0xEE])  // ID above 14 needs two-byte
        #expect(builder.form == .twoByte(appBits: 0))
        #expect(builder.body() == [0x02, 0x03, 0x12, 0x34, 0x56, 0x04, 0x02, 0x00, 0x08, 0x14, 0x01, 0xEE])
        #expect(builder.marshalSize == 12)
        builder.remove(id: 20)
        #expect(builder.ids == [2, 4])
        #expect(rtpError { try builder.set(id: 0, value: [1]) } == .invalidExtensionID(0))
        #expect(rtpError { try builder.set(id: 3, value: [UInt8](repeating: 0, count: 256)) } == .invalidExtensionLength(id: 3, length: 256))
    }
}

extension RTPExtensionTests {
    @Test("RFC 8285 §4.2: extension data read on its own, without a packet around it")
    func bareExtensionData() throws {
        let body: [UInt8] = [0x22, 0x12, 0x34, 0x56, 0x41, 0x00, 0x07, 0x00]
        try body.withUnsafeBytes { buffer throws in
            let ids = RTPExtensionIterator(buffer: buffer, extensionRange: 0..<8, profile: 0xBEDE).map(\.id)
            #expect(ids == [2, 4])
            let builder = try RTPExtensionBlockBuilder(profile: 0xBEDE, body: buffer)
            #expect(builder.body() == body)
            #expect(rtpError { try RTPExtensionBlockBuilder(profile: 0x0001, body: buffer) } == .unsupportedExtensionProfile(1))
        }
    }
}
