import Testing
@testable import StageWire

/// RFC 4571 framing (ICE-TCP, RFC 6544 §3) and the TURN-over-TCP splitter (RFC 8656 §12.5).
@Suite struct StreamFramingTests {
    // MARK: RFC 4571

    static let twoFrames: [UInt8] = [
        0x00, 0x03,             // LENGTH 3
        0x01, 0x02, 0x03,       // frame 1
        0x00, 0x00,             // LENGTH 0: an empty frame
        0x00, 0x02,             // LENGTH 2
        0xAA, 0xBB,             // frame 3
    ]

    @Test func rfc4571Section2FramesWholeAndByteByByte() throws {
        var framer = RFC4571Framer()
        #expect(try framer.frames(after: Self.twoFrames) == [[0x01, 0x02, 0x03], [], [0xAA, 0xBB]])
        #expect(framer.bufferedCount == 0)

        var slow = RFC4571Framer()
        var frames: [[UInt8]] = []
        for byte in Self.twoFrames { frames += try slow.frames(after: [byte]) }
        #expect(frames == [[0x01, 0x02, 0x03], [], [0xAA, 0xBB]])
    }

    @Test func rfc4571Section2FrameWritesTheLength() throws {
        #expect(try RFC4571Framer.frame([0x01, 0x02, 0x03]) == [0x00, 0x03, 0x01, 0x02, 0x03])
        let big = [UInt8](repeating: 7, count: 65_535)
        #expect(try RFC4571Framer.frame(big).prefix(2) == [0xFF, 0xFF])
        #expect(framingError { () throws(FramingError) in try RFC4571Framer.frame([UInt8](repeating: 0, count: 65_536)) }
            == .payloadTooLong(length: 65_536, limit: 65_535))
    }

    @Test func rfc4571PartialFrameWaits() throws {
        var framer = RFC4571Framer()
        #expect(try framer.frames(after: [0x00, 0x04, 0x01, 0x02]) == []) // LENGTH 4, half the frame
        #expect(framer.bufferedCount == 4)
        #expect(try framer.frames(after: [0x03, 0x04, 0x00]) == [[0x01, 0x02, 0x03, 0x04]]) // rest, then half a LENGTH
        #expect(framer.bufferedCount == 1)
    }

    @Test func rfc4571FrameOverTheLimitIsFatal() throws {
        var framer = RFC4571Framer(maximumFrameLength: 1500)
        let error = framingError { () throws(FramingError) in
            try framer.frames(after: [0x05, 0xDD]) // LENGTH 1501
        }
        #expect(error == .frameTooLarge(length: 1501, limit: 1500))
        #expect(error?.isFatal == true)
        // The stream has lost its boundary: every later call throws the same error.
        #expect(framingError { () throws(FramingError) in try framer.append([0x00]) } == error)
        #expect(framingError { () throws(FramingError) in try framer.nextFrame() } == error)
    }

    @Test func rfc4571BufferIsBounded() throws {
        var framer = RFC4571Framer(bufferLimit: 70_000)
        #expect(framer.bufferLimit == 70_000)
        try framer.append([0xFF, 0xFF] + [UInt8](repeating: 0, count: 60_000)) // a 65,535-byte frame, started
        #expect(framingError { () throws(FramingError) in try framer.append([UInt8](repeating: 0, count: 10_000)) }
            == .bufferLimitExceeded(buffered: 70_002, limit: 70_000))
        // The limit is raised to hold one maximal frame.
        #expect(RFC4571Framer(bufferLimit: 10).bufferLimit == 65_537)
    }

    // MARK: TURN over TCP

    /// A Binding success (STUN, 0x00 first bits) then ChannelData with 1 byte (padded to 4), then
    /// an empty ChannelData.
    static let turnStream: [UInt8] = [
        0x01, 0x01, 0x00, 0x00, // Binding success response, length 0
        0x21, 0x12, 0xA4, 0x42, // Magic cookie
        0xB7, 0xE7, 0xA7, 0x01, 0xBC, 0x34, 0xD6, 0x86, 0xFA, 0x87, 0xDF, 0xAE, // Transaction ID
        0x40, 0x02, 0x00, 0x01, // ChannelData, channel 0x4002, length 1
        0x2A, 0x00, 0x00, 0x00, // data 0x2a, 3 bytes of padding (§12.5)
        0x4F, 0xFF, 0x00, 0x00, // ChannelData, channel 0x4fff, length 0
    ]

    @Test func rfc8656Section12_5SplitsSTUNAndPaddedChannelData() throws {
        for chunk in [1, 3, 7, Self.turnStream.count] {
            var splitter = TURNStreamSplitter()
            var frames: [TURNStreamFrame] = []
            var offset = 0
            while offset < Self.turnStream.count {
                try splitter.append(Self.turnStream[offset ..< min(offset + chunk, Self.turnStream.count)])
                offset += chunk
                while let frame = try splitter.nextFrame() { frames.append(frame) }
            }
            #expect(frames.count == 3, "chunks of \(chunk)")
            guard frames.count == 3, case .stun(let message) = frames[0] else { continue }
            #expect(message.type == .bindingSuccess)
            #expect(frames[1] == .channelData(TURNChannelData(channel: 0x4002, payload: [0x2A])))
            #expect(frames[2] == .channelData(TURNChannelData(channel: 0x4FFF, payload: [])))
            #expect(splitter.bufferedCount == 0)
        }
    }

    /// A byte stream, and the first error reading it must throw.
    struct SplitterCase: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let error: FramingError
        var testDescription: String { name }
    }

    static let splitterCases: [SplitterCase] = [
        SplitterCase(
            name: "RFC 8489 §5 wrong magic cookie",
            bytes: [
                0x01, 0x01, 0x00, 0x00, // Binding success, length 0
                0x21, 0x12, 0xA4, 0x43, // magic cookie off by one
            ],
            error: .badSTUNHeader(.badMagicCookie(0x2112_A443))),
        SplitterCase(
            name: "RFC 8489 §5 length not a multiple of 4",
            bytes: [0x01, 0x01, 0x00, 0x02], // Binding success, length 2
            error: .badSTUNHeader(.lengthNotMultipleOfFour(2))),
        SplitterCase(
            name: "RFC 8656 §12 reserved channel 0x5000",
            bytes: [0x50, 0x00, 0x00, 0x04], // channel 0x5000, length 4
            error: .invalidChannelNumber(0x5000)),
        SplitterCase(
            name: "RFC 8656 §12 first bits 10: neither STUN nor ChannelData",
            bytes: [0x80], // first byte 0x80
            error: .unknownFrameType(firstByte: 0x80)),
        SplitterCase(
            name: "RFC 8489 §14 attribute past the message: frame skipped",
            bytes: [
                0x01, 0x01, 0x00, 0x04, // Binding success, length 4
                0x21, 0x12, 0xA4, 0x42, // Magic cookie
                0xB7, 0xE7, 0xA7, 0x01, 0xBC, 0x34, 0xD6, 0x86, 0xFA, 0x87, 0xDF, 0xAE, // Transaction ID
                0x00, 0x06, 0x00, 0x08, // USERNAME, 8 bytes in a 4-byte body
            ],
            error: .malformedSTUN(.attributeBeyondMessage(type: .username, offset: 20, length: 8))),
    ]

    @Test(arguments: splitterCases)
    func malformedStreamThrows(_ testCase: SplitterCase) throws {
        var splitter = TURNStreamSplitter()
        try splitter.append(testCase.bytes)
        let error = framingError { () throws(FramingError) in try splitter.nextFrame() }
        #expect(error == testCase.error)
        if testCase.error.isFatal {
            #expect(framingError { () throws(FramingError) in try splitter.nextFrame() } == testCase.error)
        } else {
            #expect(try splitter.nextFrame() == nil) // skipped, nothing left
        }
    }

    @Test func malformedSTUNIsSkippedAndTheNextFrameRead() throws {
        var splitter = TURNStreamSplitter()
        try splitter.append(Self.splitterCases[4].bytes + Self.turnStream)
        #expect(framingError { () throws(FramingError) in try splitter.nextFrame() } != nil)
        guard case .stun = try splitter.nextFrame() else {
            Issue.record("the Binding success after the malformed message was not read")
            return
        }
    }

    @Test func turnStreamBufferIsBounded() throws {
        var splitter = TURNStreamSplitter(bufferLimit: 0)
        #expect(splitter.bufferLimit == TURNStreamSplitter.maximumFrameLength)
        try splitter.append([0x40, 0x00, 0xFF, 0xFF]) // ChannelData header announcing 65,535 bytes
        let error = framingError { () throws(FramingError) in
            try splitter.append([UInt8](repeating: 0, count: TURNStreamSplitter.maximumFrameLength))
        }
        #expect(error == .bufferLimitExceeded(buffered: TURNStreamSplitter.maximumFrameLength + 4,
                                              limit: TURNStreamSplitter.maximumFrameLength))
        #expect(error?.isFatal == true)
    }
}
