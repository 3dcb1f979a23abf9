import Foundation
import Testing
@testable import StageDevices
@testable import StageMedia

@Suite("WAV reader and writer (RIFF WAVE, PCM)")
struct FileWAVTests {
    typealias T = FileTestSupport

    static let samples: [Int16] = [0, 1, -1, 32767, -32768, 1234, -4321, 7]

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var expected: WAVError
        var testDescription: String { name }
    }

    static let malformed: [Case] = {
        let data = T.chunk("data", T.pcmBytes(samples))
        let fmt = T.chunk("fmt ", T.fmtBody())
        return [
            Case(name: "empty", bytes: [], expected: .truncatedHeader(available: 0)),
            Case(name: "truncated RIFF header", bytes: Array("RIFF\u{10}\0\0\0WA".utf8), expected: .truncatedHeader(available: 10)),
            Case(name: "bad magic", bytes: Array("RIFX\u{10}\0\0\0WAVE".utf8), expected: .notRIFF(found: Array("RIFX".utf8))),
            Case(name: "Y4M instead", bytes: Array("YUV4MPEG2 W4 H2\n".utf8), expected: .notRIFF(found: Array("YUV4".utf8))),
            Case(name: "not WAVE", bytes: Array("RIFF\u{4}\0\0\0AVI ".utf8), expected: .notWAVE(found: Array("AVI ".utf8))),
            Case(name: "no fmt chunk", bytes: T.riff(data), expected: .missingChunk("fmt ")),
            Case(name: "no data chunk", bytes: T.riff(fmt), expected: .missingChunk("data")),
            Case(name: "fmt chunk cut short", bytes: T.riff(T.chunk("fmt ", Array(T.fmtBody().prefix(14))), data),
                 expected: .formatChunkTooShort(size: 14, minimum: 16)),
            Case(name: "IEEE float format tag", bytes: T.riff(T.chunk("fmt ", T.fmtBody(tag: 3, bits: 32)), data), expected: .unsupportedFormatTag(3)),
            Case(name: "MP3 format tag", bytes: T.riff(T.chunk("fmt ", T.fmtBody(tag: 0x55)), data), expected: .unsupportedFormatTag(0x55)),
            Case(name: "extensible cut short", bytes: T.riff(T.chunk("fmt ", Array(T.extensibleBody().prefix(18))), data),
                 expected: .formatChunkTooShort(size: 18, minimum: 40)),
            Case(name: "extensible float subformat",
                 bytes: T.riff(T.chunk("fmt ", T.extensibleBody(subFormat: [3, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71])), data),
                 expected: .unsupportedSubFormat("00000003-0000-0010-8000-00AA00389B71")),
            Case(name: "8-bit", bytes: T.riff(T.chunk("fmt ", T.fmtBody(bits: 8)), data), expected: .unsupportedBitsPerSample(8)),
            Case(name: "24-bit", bytes: T.riff(T.chunk("fmt ", T.fmtBody(bits: 24)), data), expected: .unsupportedBitsPerSample(24)),
            Case(name: "44.1 kHz", bytes: T.riff(T.chunk("fmt ", T.fmtBody(rate: 44_100)), data), expected: .unsupportedSampleRate(44_100)),
            Case(name: "6 channels", bytes: T.riff(T.chunk("fmt ", T.fmtBody(channels: 6)), data), expected: .unsupportedChannelCount(6)),
            Case(name: "0 channels", bytes: T.riff(T.chunk("fmt ", T.fmtBody(channels: 0, blockAlign: 0)), data), expected: .unsupportedChannelCount(0)),
            Case(name: "block align off", bytes: T.riff(T.chunk("fmt ", T.fmtBody(channels: 2, blockAlign: 2)), data),
                 expected: .inconsistentBlockAlign(blockAlign: 2, expected: 4)),
            Case(name: "data chunk size beyond end", bytes: T.riff(fmt, T.chunk("data", T.pcmBytes(samples), declaredSize: 1000)),
                 expected: .chunkBeyondEnd(id: "data", offset: 36, size: 1000, available: 16)),
            Case(name: "chunk size overflow (0xFFFFFFFF)", bytes: T.riff(fmt, T.chunk("LIST", [1, 2, 3, 4], declaredSize: .max), data),
                 expected: .chunkBeyondEnd(id: "LIST", offset: 36, size: .max, available: 4 + 24)),
            Case(name: "fmt size beyond end", bytes: T.riff(T.chunk("fmt ", [1, 0], declaredSize: 16)),
                 expected: .chunkBeyondEnd(id: "fmt ", offset: 12, size: 16, available: 2)),
        ]
    }()

    @Test("malformed files throw a named error", arguments: malformed)
    func malformedFile(_ test: Case) {
        #expect(throws: test.expected) { try WAVReader(bytes: test.bytes) }
    }

    @Test("errors name the field at fault")
    func errorDescriptions() {
        #expect(WAVError.unsupportedSampleRate(44_100).description.contains("sample rate 44100 Hz: only 48000 Hz is supported"))
        #expect(WAVError.unsupportedFormatTag(3).description.contains("format tag 0x0003 (IEEE float)"))
        #expect(WAVError.unsupportedBitsPerSample(8).description.contains("8 bits per sample"))
        #expect(WAVError.unsupportedChannelCount(6).description.contains("6 channels"))
        #expect(WAVError.chunkBeyondEnd(id: "data", offset: 36, size: 1000, available: 16).description.contains("\"data\""))
    }

    @Test("skips unknown chunks, odd ones with their pad byte, and reads extensible PCM")
    func unknownChunksAndExtensible() throws {
        let stereo: [Int16] = [1, -1, 2, -2, 3, -3]
        let bytes = T.riff(
            T.chunk("JUNK", [0xAA, 0xBB, 0xCC]),  // odd: one pad byte follows
            T.chunk("fmt ", T.extensibleBody(channels: 2)),
            T.chunk("LIST", Array("INFOISFT\u{5}\0\0\0test\0".utf8)),
            T.chunk("data", T.pcmBytes(stereo)),
            T.chunk("id3 ", [1]))
        var reader = try WAVReader(bytes: bytes)
        #expect(reader.format.channels == 2)
        #expect(reader.sampleFrameCount == 3)
        #expect(try reader.read(sampleFrames: 2) == [1, -1, 2, -2])
        #expect(try reader.read(sampleFrames: 2) == [3, -3])
        #expect(try reader.read(sampleFrames: 2) == [])
        reader.seek(toSampleFrame: 1)
        #expect(try reader.read(sampleFrames: 1) == [2, -2])
    }

    @Test("an odd-sized data chunk ignores its partial sample frame; a missing final pad byte is fine")
    func oddDataChunk() throws {
        let body = T.pcmBytes([5, 6]) + [0x7F]
        let bytes = Array(T.riff(T.chunk("fmt ", T.fmtBody()), T.chunk("data", body)).dropLast())
        var reader = try WAVReader(bytes: bytes)
        #expect(reader.sampleFrameCount == 2)
        #expect(try reader.read(sampleFrames: 10) == [5, 6])
    }

    @Test("WAVWriter output reads back identical and its sizes are patched", arguments: [1, 2])
    func roundTrip(channels: Int) throws {
        let path = T.temporaryPath(".wav")
        defer { T.remove(path) }
        var microphone = try SyntheticMicrophone(frequency: 997, channels: channels)
        let frames = (0..<10).map { microphone.nextFrame(captureTimeMicros: UInt64($0) * 20_000)! }
        let writer = try WAVWriter(path: path, channels: channels)
        for frame in frames { try writer.write(frame) }
        try writer.write(samples: Array(Self.samples.prefix(channels * 3)))
        try writer.close()
        try writer.close()  // a second close does nothing
        #expect(throws: MediaWriterError.closed(path: path)) { try writer.write(samples: [0, 0]) }

        let bytes = try T.contents(of: path)
        #expect(bytes.count == 44 + (9600 + 3) * channels * 2)
        #expect(MediaFileLE.uint32(bytes, 4) == UInt32(bytes.count - 8))
        #expect(MediaFileLE.uint32(bytes, 40) == UInt32(bytes.count - 44))

        var reader = try WAVReader(path: path)
        #expect(reader.format == WAVFormat(channels: channels))
        #expect(reader.sampleFrameCount == 9603)
        #expect(reader.durationMicros == 200_062)
        #expect(try reader.read(sampleFrames: 9603) == frames.flatMap(\.samples) + Self.samples.prefix(channels * 3))
    }

    @Test("writer rejects what WAV cannot hold")
    func writerArguments() throws {
        #expect(throws: MediaWriterError.self) { try WAVWriter(path: T.temporaryPath(".wav"), channels: 3) }
        let path = T.temporaryPath(".wav")
        defer { T.remove(path) }
        let writer = try WAVWriter(path: path, channels: 2)
        #expect(throws: MediaWriterError.self) { try writer.write(samples: [1, 2, 3]) }
        #expect(throws: MediaWriterError.self) { try writer.write(AudioFrame(channels: 1, samples: [1])) }
        #expect(throws: MediaWriterError.io(MediaFileIOError(path: "/nonexistent/x.wav", operation: "open", errno: ENOENT))) {
            try WAVWriter(path: "/nonexistent/x.wav", channels: 1)
        }
    }

    @Test("ffprobe reads the written WAV", .enabled(if: FileTestSupport.ffprobe != nil, "\(FileTestSupport.skipMessage)"))
    func ffprobeValidates() throws {
        let path = T.temporaryPath(".wav")
        defer { T.remove(path) }
        var microphone = try SyntheticMicrophone(channels: 2)
        let writer = try WAVWriter(path: path, channels: 2)
        for _ in 0..<50 { try writer.write(microphone.nextFrame(captureTimeMicros: 0)!) }
        try writer.close()
        let probe = try T.probe(path)
        #expect(probe["codec_name"] == "pcm_s16le", "\(probe)")
        #expect(probe["sample_rate"] == "48000")
        #expect(probe["channels"] == "2")
        #expect(abs((Double(probe["duration"] ?? "") ?? 0) - 1.0) < 0.1, "\(probe)")
    }
}
