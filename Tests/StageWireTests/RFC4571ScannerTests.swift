import Testing
@testable import StageWire

/// RFC 4571 §2's scan, shared by `RFC4571Framer` and the media server's in-place reader: what it
/// consumes and why it stops, on commented bytes.
struct RFC4571ScannerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var maximum = 16
        var stopAfter = Int.max
        var frames: [[UInt8]]
        var consumed: Int
        var outcome: RFC4571Scanner.Outcome
        var testDescription: String { name }
    }

    @Test("consumed bytes and outcome", arguments: [
        Case(name: "nothing", bytes: [], frames: [], consumed: 0, outcome: .needMoreBytes),
        Case(name: "a lone prefix byte", bytes: [0x00], frames: [], consumed: 0, outcome: .needMoreBytes),
        Case(name: "a prefix without its frame", bytes: [0x00, 0x02, 0xAA], frames: [], consumed: 0, outcome: .needMoreBytes),
        Case(name: "an empty frame", bytes: [0x00, 0x00], frames: [[]], consumed: 2, outcome: .needMoreBytes),
        Case(name: "two frames, then a lone prefix byte", bytes: [0x00, 0x01, 0xAA, 0x00, 0x02, 0xBB, 0xCC, 0x00],
             frames: [[0xAA], [0xBB, 0xCC]], consumed: 7, outcome: .needMoreBytes),
        Case(name: "a frame of exactly the maximum", bytes: [0x00, 0x03, 1, 2, 3], maximum: 3, frames: [[1, 2, 3]], consumed: 5,
             outcome: .needMoreBytes),
        Case(name: "one over the maximum", bytes: [0x00, 0x04, 1, 2, 3, 4], maximum: 3, frames: [], consumed: 0,
             outcome: .frameTooLarge(length: 4)),
        Case(name: "LENGTH 0xFFFF", bytes: [0xFF, 0xFF], frames: [], consumed: 0, outcome: .frameTooLarge(length: 0xFFFF)),
        Case(name: "LENGTH 0xFFFF allowed: waits", bytes: [0xFF, 0xFF, 0x00], maximum: 0xFFFF, frames: [], consumed: 0,
             outcome: .needMoreBytes),
        Case(name: "oversized after good frames: those consumed, the bad prefix not", bytes: [0x00, 0x01, 0xAA, 0x00, 0x00, 0x01, 0x00, 9],
             frames: [[0xAA], []], consumed: 5, outcome: .frameTooLarge(length: 256)),
        Case(name: "the body stops: consumed ends after its frame", bytes: [0x00, 0x01, 0xAA, 0x00, 0x01, 0xBB], stopAfter: 1,
             frames: [[0xAA]], consumed: 3, outcome: .stopped),
    ])
    func scan(_ example: Case) {
        var bytes = example.bytes
        var frames: [[UInt8]] = []
        let (consumed, outcome) = bytes.withUnsafeMutableBytes { buffer in
            RFC4571Scanner.scan(buffer, maximumFrameLength: example.maximum) { frame in
                frames.append(Array(frame))
                return frames.count < example.stopAfter
            }
        }
        #expect(frames == example.frames)
        #expect(consumed == example.consumed)
        #expect(outcome == example.outcome)
    }

    @Test("the maximum is clamped to what LENGTH can say, and the framer uses the same clamp")
    func clamp() {
        #expect(RFC4571Scanner.clampedMaximum(0) == 1 && RFC4571Scanner.clampedMaximum(70_000) == 0xFFFF)
        #expect(RFC4571Framer(maximumFrameLength: 70_000).maximumFrameLength == 0xFFFF)
        #expect(RFC4571Framer.prefixLength == RFC4571Scanner.prefixLength)
    }

    @Test("frames are slices of the scanned bytes: written in place")
    func inPlace() {
        var bytes: [UInt8] = [0x00, 0x02, 1, 2]
        _ = bytes.withUnsafeMutableBytes { buffer in
            RFC4571Scanner.scan(buffer, maximumFrameLength: 16) { frame in
                frame[1] = 9
                return true
            }
        }
        #expect(bytes == [0x00, 0x02, 1, 9])
    }

    @Test("the framer after good frames and an oversized one in one append: the good frames, then the fatal error for good")
    func framerAfterFatal() {
        var framer = RFC4571Framer(maximumFrameLength: 4)
        #expect(framingError { () throws(FramingError) in try framer.append([0x00, 0x01, 0xAA, 0x00, 0x05]) } == nil)
        #expect((try? framer.nextFrame()) == [0xAA])
        let error = framingError { () throws(FramingError) in try framer.nextFrame() }
        #expect(error == .frameTooLarge(length: 5, limit: 4))
        #expect(framingError { () throws(FramingError) in try framer.append([0x00, 0x00]) } == error)
        #expect(framingError { () throws(FramingError) in try framer.nextFrame() } == error)
    }
}
