import Testing
@testable import StageWire

/// One malformed ChannelData datagram and the error parsing must report.
struct ChannelDataMalformedCase: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let error: FramingError
    var testDescription: String { name }
}

/// ChannelData messages (RFC 8656 §12.4–§12.5).
@Suite struct TURNChannelDataTests {
    static let message: [UInt8] = [
        0x40, 0x01, 0x00, 0x05, // channel 0x4001, length 5
        0x68, 0x65, 0x6C, 0x6C, // "hell"
        0x6F,                   // "o"
    ]

    @Test func rfc8656Section12_4ParseAndSerialize() throws {
        let parsed = try TURNChannelData(parsing: Self.message)
        #expect(parsed == TURNChannelData(channel: 0x4001, payload: Array("hello".utf8)))
        #expect(try parsed.serialized() == Self.message)
        #expect(try parsed.serialized(padded: true) == Self.message + [0x00, 0x00, 0x00])
    }

    @Test func rfc8656Section12_5PaddedOverUDPIsAccepted() throws {
        let parsed = try TURNChannelData(parsing: Self.message + [0x00, 0x00, 0x00]) // 3 bytes of padding
        #expect(parsed.payload == Array("hello".utf8))
    }

    @Test func emptyPayloadAndTheLastChannel() throws {
        let bytes: [UInt8] = [0x4F, 0xFF, 0x00, 0x00] // channel 0x4fff, length 0
        #expect(try TURNChannelData(parsing: bytes) == TURNChannelData(channel: 0x4FFF, payload: []))
        #expect(TURNChannelData.isChannelData(firstByte: 0x40))
        #expect(TURNChannelData.isChannelData(firstByte: 0x4F))
        #expect(!TURNChannelData.isChannelData(firstByte: 0x50))
        #expect(!TURNChannelData.isChannelData(firstByte: 0x00))
    }

    static let cases: [ChannelDataMalformedCase] = [
        ChannelDataMalformedCase(
            name: "§12.4 header cut after 3 bytes",
            bytes: [0x40, 0x00, 0x00], // channel 0x4000, half a length
            error: .truncatedChannelData(available: 3)),
        ChannelDataMalformedCase(
            name: "§12 channel 0x3fff is below the range",
            bytes: [0x3F, 0xFF, 0x00, 0x00], // channel 0x3fff, length 0
            error: .invalidChannelNumber(0x3FFF)),
        ChannelDataMalformedCase(
            name: "§12 channel 0x5000 is reserved",
            bytes: [0x50, 0x00, 0x00, 0x00], // channel 0x5000, length 0
            error: .invalidChannelNumber(0x5000)),
        ChannelDataMalformedCase(
            name: "§12 channel 0x8000 is not ChannelData",
            bytes: [0x80, 0x00, 0x00, 0x00], // leading bits 10
            error: .invalidChannelNumber(0x8000)),
        ChannelDataMalformedCase(
            name: "§12.4 length past the datagram",
            bytes: [
                0x40, 0x00, 0x00, 0x08, // channel 0x4000, length 8
                0x01, 0x02, 0x03, 0x04, // only 4 bytes of data
            ],
            error: .lengthBeyondBuffer(declared: 8, available: 4)),
        ChannelDataMalformedCase(
            name: "§12.5 trailing bytes beyond the padding",
            bytes: [
                0x40, 0x00, 0x00, 0x01, // channel 0x4000, length 1
                0x01, 0x00, 0x00, 0x00, // data, 3 bytes of padding
                0xFF,                   // one byte too many
            ],
            error: .trailingBytes(declared: 1, available: 5)),
        ChannelDataMalformedCase(
            name: "§12.5 partial padding",
            bytes: [
                0x40, 0x00, 0x00, 0x01, // channel 0x4000, length 1
                0x01, 0x00,             // data, 1 of 3 bytes of padding
            ],
            error: .trailingBytes(declared: 1, available: 2)),
    ]

    @Test(arguments: cases)
    func malformedChannelDataThrows(_ testCase: ChannelDataMalformedCase) {
        #expect(framingError { () throws(FramingError) in try TURNChannelData(parsing: testCase.bytes) } == testCase.error)
    }

    @Test func serializingRefusesBadChannelsAndOversizedPayloads() {
        let badChannel = TURNChannelData(channel: 0x5000, payload: [])
        #expect(framingError { () throws(FramingError) in try badChannel.serialized() } == .invalidChannelNumber(0x5000))
        let tooLong = TURNChannelData(channel: 0x4000, payload: [UInt8](repeating: 0, count: 65_536))
        #expect(framingError { () throws(FramingError) in try tooLong.serialized() } == .payloadTooLong(length: 65_536, limit: 65_535))
    }
}
