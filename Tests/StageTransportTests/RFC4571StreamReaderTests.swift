import NIOCore
import Testing
@testable import StageTransport

/// RFC 4571 §2 frames cut in place from a byte stream that arrives in arbitrary pieces (the
/// scan is StageWire's `RFC4571Scanner`, fuzzed against `RFC4571Framer` by the `framing` target).
struct RFC4571StreamReaderTests {
    /// Feeds `chunks` and returns the frames handed over, and the last outcome.
    static func read(_ chunks: [[UInt8]], maximum: Int = 2048, stopAfter: Int = .max) -> ([[UInt8]], RFC4571StreamReader.Outcome) {
        var reader = RFC4571StreamReader(maximumFrameLength: maximum)
        var frames: [[UInt8]] = []
        var outcome = RFC4571StreamReader.Outcome.needMoreBytes
        for chunk in chunks {
            var buffer = ByteBuffer(bytes: chunk)
            outcome = reader.read(&buffer) { frame in
                frames.append(Array(frame))
                return frames.count < stopAfter
            }
            if outcome != .needMoreBytes { break }
        }
        return (frames, outcome)
    }

    static let stream: [UInt8] = [0x00, 0x03, 0xAA, 0xBB, 0xCC,   // 3-byte frame
                                  0x00, 0x00,                     // empty frame
                                  0x00, 0x01, 0x42]               // 1-byte frame

    @Test("§2: every split of the stream yields the same frames", arguments: 0...10)
    func anySplit(at cut: Int) {
        let (frames, outcome) = Self.read([Array(Self.stream[..<cut]), Array(Self.stream[cut...])])
        #expect(frames == [[0xAA, 0xBB, 0xCC], [], [0x42]])
        #expect(outcome == .needMoreBytes)
    }

    @Test("one byte at a time")
    func byteByByte() {
        let (frames, _) = Self.read(Self.stream.map { [$0] })
        #expect(frames == [[0xAA, 0xBB, 0xCC], [], [0x42]])
    }

    @Test("a length over the maximum is fatal as soon as its two bytes arrive")
    func tooLarge() {
        let (frames, outcome) = Self.read([[0x00, 0x01, 0x42, 0x08], [0x01]], maximum: 2048)
        #expect(frames == [[0x42]])
        #expect(outcome == .frameTooLarge(length: 2049))
    }

    @Test("a frame of exactly the maximum passes")
    func exactlyMaximum() {
        let (frames, outcome) = Self.read([[0x00, 0x04, 1, 2, 3, 4]], maximum: 4)
        #expect(frames == [[1, 2, 3, 4]] && outcome == .needMoreBytes)
    }

    @Test("the closure stops the reading (the connection is closing)")
    func stop() {
        let (frames, outcome) = Self.read([Self.stream], stopAfter: 1)
        #expect(frames == [[0xAA, 0xBB, 0xCC]] && outcome == .stopped)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var chunks: [[UInt8]]
        var maximum = 2048
        var frames: [[UInt8]]
        var outcome: RFC4571StreamReader.Outcome
        var buffered: Int
        var testDescription: String { name }
    }

    @Test("RFC 4571 §2 edge cases", arguments: [
        Case(name: "a lone prefix byte waits", chunks: [[0x00]], frames: [], outcome: .needMoreBytes, buffered: 1),
        Case(name: "a lone prefix byte completed by the next read", chunks: [[0x00], [0x01, 0x42]], frames: [[0x42]],
             outcome: .needMoreBytes, buffered: 0),
        Case(name: "LENGTH 0xFFFF over the maximum is fatal at once", chunks: [[0xFF, 0xFF]], frames: [],
             outcome: .frameTooLarge(length: 0xFFFF), buffered: 0),
        Case(name: "LENGTH 0xFFFF with the maximum at 65,535 waits for its bytes", chunks: [[0xFF, 0xFF, 1, 2, 3]], maximum: 0xFFFF,
             frames: [], outcome: .needMoreBytes, buffered: 5),
        Case(name: "frames of exactly the maximum, back to back", chunks: [[0x00, 0x03, 1, 2, 3, 0x00, 0x03, 4, 5, 6]], maximum: 3,
             frames: [[1, 2, 3], [4, 5, 6]], outcome: .needMoreBytes, buffered: 0),
        Case(name: "oversized after good frames in one read: the good ones first, then fatal",
             chunks: [[0x00, 0x01, 0xAA, 0x00, 0x00, 0x00, 0x04, 1, 2, 3, 4, 0x08, 0x01, 0x00]], frames: [[0xAA], [], [1, 2, 3, 4]],
             outcome: .frameTooLarge(length: 2049), buffered: 0),
        Case(name: "reads after a fatal outcome hand nothing over and repeat it", chunks: [[0x09, 0x00], [0x00, 0x01, 0x42], [0x00]],
             frames: [], outcome: .frameTooLarge(length: 0x900), buffered: 0),
        Case(name: "a maximum of 0 is clamped to 1", chunks: [[0x00, 0x01, 7, 0x00, 0x02]], maximum: 0, frames: [[7]],
             outcome: .frameTooLarge(length: 2), buffered: 0),
    ])
    func edgeCases(_ example: Case) {
        var reader = RFC4571StreamReader(maximumFrameLength: example.maximum)
        var frames: [[UInt8]] = []
        var outcomes: [RFC4571StreamReader.Outcome] = []
        for chunk in example.chunks {
            var buffer = ByteBuffer(bytes: chunk)
            outcomes.append(reader.read(&buffer) { frame in
                frames.append(Array(frame))
                return true
            })
        }
        #expect(frames == example.frames)
        #expect(outcomes.last == example.outcome)
        if case .frameTooLarge = example.outcome, let first = outcomes.firstIndex(of: example.outcome) {
            #expect(outcomes[first...].allSatisfy { $0 == example.outcome }, "latched")
        }
        #expect(reader.bufferedCount == example.buffered)
    }

    @Test("frames are handed over mutable, in place (SRTP decrypts where they lie)")
    func inPlace() {
        var reader = RFC4571StreamReader(maximumFrameLength: 10)
        var buffer = ByteBuffer(bytes: [0x00, 0x02, 1, 2, 0x00])
        _ = reader.read(&buffer) { frame in
            frame[0] = 9
            #expect(Array(frame) == [9, 2])
            return true
        }
        #expect(reader.bufferedCount == 1)
    }
}
