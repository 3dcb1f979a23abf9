import Foundation
import Testing
@testable import StageMedia

@Suite("WAV stream parser (live pipes)")
struct FileWAVStreamParserTests {
    typealias T = FileTestSupport

    /// Feeds `bytes` in pieces of `piece`; returns the blocks of `frames` sample frames and the error, if any.
    static func parse(_ bytes: [UInt8], piece: Int, frames: Int = 2) -> (blocks: [[Int16]], error: WAVError?) {
        var parser = WAVStreamParser()
        var blocks: [[Int16]] = []
        var offset = 0
        repeat {
            parser.append(bytes[offset..<min(bytes.count, offset + piece)])
            offset += piece
            do {
                while let block = try parser.nextBlock(sampleFrames: frames) { blocks.append(block) }
            } catch {
                return (blocks, error)
            }
        } while offset < bytes.count
        return (blocks, nil)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        /// nil: the stream is not wrong yet, more bytes may come.
        var expected: WAVError?
        var testDescription: String { name }
    }

    static let cases: [Case] = {
        let fmt = T.chunk("fmt ", T.fmtBody())
        let data = T.chunk("data", T.pcmBytes([1, 2, 3, 4]), declaredSize: .max)
        return [
            Case(name: "empty", bytes: [], expected: nil),
            Case(name: "RIFF header cut", bytes: Array("RIFF\u{10}\0\0\0WA".utf8), expected: nil),
            Case(name: "bad magic", bytes: Array("RIFX\u{10}\0\0\0WAVE".utf8), expected: .notRIFF(found: Array("RIFX".utf8))),
            Case(name: "not WAVE", bytes: Array("RIFF\u{4}\0\0\0AVI ".utf8), expected: .notWAVE(found: Array("AVI ".utf8))),
            Case(name: "data before fmt", bytes: T.riff(data), expected: .missingChunk("fmt ")),
            Case(name: "fmt only, data not yet", bytes: T.riff(fmt), expected: nil),
            Case(name: "44.1 kHz", bytes: T.riff(T.chunk("fmt ", T.fmtBody(rate: 44_100)), data), expected: .unsupportedSampleRate(44_100)),
            Case(name: "8-bit", bytes: T.riff(T.chunk("fmt ", T.fmtBody(bits: 8)), data), expected: .unsupportedBitsPerSample(8)),
            Case(name: "fmt cut short", bytes: T.riff(T.chunk("fmt ", Array(T.fmtBody().prefix(14))), data),
                 expected: .formatChunkTooShort(size: 14, minimum: 16)),
            Case(name: "a LIST chunk of 4 GB before data", bytes: T.riff(fmt, T.chunk("LIST", [1, 2, 3, 4], declaredSize: .max)),
                 expected: .chunkBeyondEnd(id: "LIST", offset: 36, size: .max, available: 65_536 - 36 - 8)),
        ]
    }()

    @Test("malformed streams: a named error, whatever the pieces; a stream cut short waits", arguments: cases, [1, 5, 4096])
    func malformed(_ test: Case, piece: Int) {
        let (_, error) = Self.parse(test.bytes, piece: piece)
        #expect(error == test.expected)
    }

    @Test("the samples of the data chunk, whatever its declared size and the pieces", arguments: [1, 3, 7, 4096])
    func samples(piece: Int) throws {
        let stereo: [Int16] = [1, -1, 2, -2, 3, -3, 32767, -32768, 5]   // the last, half a sample frame, never comes out
        let bytes = T.riff(T.chunk("JUNK", [0xAA, 0xBB, 0xCC]), T.chunk("fmt ", T.fmtBody(channels: 2)),
                           T.chunk("data", T.pcmBytes(stereo), declaredSize: 0))
        let (blocks, error) = Self.parse(bytes, piece: piece)
        #expect(error == nil)
        #expect(blocks == [[1, -1, 2, -2], [3, -3, 32767, -32768]])
    }
}
