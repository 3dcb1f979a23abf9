import Foundation
import Testing
@testable import StageDevices
@testable import StageMedia

@Suite("Y4M reader (yuv4mpeg(5))")
struct FileY4MReaderTests {
    /// A 4×2 picture: 8 luma + 2 + 2 chroma bytes.
    static let tinyHeader = "YUV4MPEG2 W4 H2 F25:1 Ip A1:1 C420jpeg\n"
    static let tinyFrame: [UInt8] = Array(0..<12)

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var expected: Y4MError
        var testDescription: String { name }
    }

    static let malformed: [Case] = [
        Case(name: "empty", bytes: [], expected: .empty),
        Case(name: "magic cut short", bytes: Array("YUV4".utf8), expected: .truncatedHeader(bytes: 4)),
        // "YUV4MPEG2 W4 H2" with no line feed: the header never ends.
        Case(name: "truncated header", bytes: Array("YUV4MPEG2 W4 H2".utf8), expected: .truncatedHeader(bytes: 15)),
        Case(name: "bad magic", bytes: Array("YUV4MPEG3 W4 H2\n".utf8), expected: .notYUV4MPEG2(prefix: Array("YUV4MPEG3".utf8))),
        Case(name: "RIFF instead", bytes: Array("RIFF\u{24}\0\0\0WAVE".utf8), expected: .notYUV4MPEG2(prefix: Array("RIFF\u{24}\0\0\0W".utf8))),
        Case(name: "magic without separator", bytes: Array("YUV4MPEG2W4 H2\n".utf8), expected: .notYUV4MPEG2(prefix: Array("YUV4MPEG2W".utf8))),
        Case(name: "header over 4096 bytes", bytes: Array(("YUV4MPEG2 W4 H2 X" + String(repeating: "x", count: 5000) + "\n").utf8),
             expected: .headerTooLong(limit: 4096)),
        Case(name: "chroma C444", bytes: FileTestSupport.y4m("YUV4MPEG2 W4 H2 C444\n"), expected: .unsupportedColourspace("444")),
        Case(name: "chroma C422", bytes: FileTestSupport.y4m("YUV4MPEG2 W4 H2 C422\n"), expected: .unsupportedColourspace("422")),
        Case(name: "Cmono", bytes: FileTestSupport.y4m("YUV4MPEG2 W4 H2 Cmono\n"), expected: .unsupportedColourspace("mono")),
        Case(name: "10-bit C420p10", bytes: FileTestSupport.y4m("YUV4MPEG2 W4 H2 C420p10 XYSCSS=420P10\n"),
             expected: .unsupportedBitDepth(colourspace: "420p10", bits: 10)),
        Case(name: "16-bit Cmono16", bytes: FileTestSupport.y4m("YUV4MPEG2 W4 H2 Cmono16\n"), expected: .unsupportedBitDepth(colourspace: "mono16", bits: 16)),
        Case(name: "zero width", bytes: FileTestSupport.y4m("YUV4MPEG2 W0 H2\n"), expected: .invalidParameter(tag: "W", value: "0", rule: "")),
        Case(name: "negative height", bytes: FileTestSupport.y4m("YUV4MPEG2 W4 H-2\n"), expected: .invalidParameter(tag: "H", value: "-2", rule: "")),
        Case(name: "width of 10 digits", bytes: FileTestSupport.y4m("YUV4MPEG2 W1234567890 H2\n"),
             expected: .invalidParameter(tag: "W", value: "1234567890", rule: "")),
        Case(name: "huge width", bytes: FileTestSupport.y4m("YUV4MPEG2 W99999 H2\n"), expected: .frameTooLarge(width: 99999, height: 2)),
        Case(name: "4096×4096 over the area cap", bytes: FileTestSupport.y4m("YUV4MPEG2 W4096 H4096\n"), expected: .frameTooLarge(width: 4096, height: 4096)),
        Case(name: "no width", bytes: FileTestSupport.y4m("YUV4MPEG2 H2 F25:1\n"), expected: .missingParameter("W")),
        Case(name: "no height", bytes: FileTestSupport.y4m("YUV4MPEG2 W4\n"), expected: .missingParameter("H")),
        Case(name: "rate without colon", bytes: FileTestSupport.y4m("YUV4MPEG2 W4 H2 F25\n"), expected: .invalidParameter(tag: "F", value: "25", rule: "")),
        Case(name: "rate n:0", bytes: FileTestSupport.y4m("YUV4MPEG2 W4 H2 F25:0\n"), expected: .invalidParameter(tag: "F", value: "25:0", rule: "")),
        Case(name: "aspect garbage", bytes: FileTestSupport.y4m("YUV4MPEG2 W4 H2 A1:x\n"), expected: .invalidParameter(tag: "A", value: "1:x", rule: "")),
        Case(name: "interlacing x", bytes: FileTestSupport.y4m("YUV4MPEG2 W4 H2 Ix\n"), expected: .invalidParameter(tag: "I", value: "x", rule: "")),
        Case(name: "missing FRAME marker", bytes: FileTestSupport.y4m(tinyHeader, Array("FRAMX\n".utf8) + tinyFrame),
             expected: .missingFrameMarker(frame: 0, offset: Int64(tinyHeader.utf8.count))),
        Case(name: "FRAME glued to a word", bytes: FileTestSupport.y4m(tinyHeader, Array("FRAMES\n".utf8) + tinyFrame),
             expected: .missingFrameMarker(frame: 0, offset: Int64(tinyHeader.utf8.count))),
        Case(name: "planes without FRAME", bytes: FileTestSupport.y4m(tinyHeader, tinyFrame),
             expected: .missingFrameMarker(frame: 0, offset: Int64(tinyHeader.utf8.count))),
        Case(name: "FRAME cut short", bytes: FileTestSupport.y4m(tinyHeader, Array("FRA".utf8)), expected: .truncatedFrameHeader(frame: 0)),
        Case(name: "FRAME line not ended", bytes: FileTestSupport.y4m(tinyHeader, Array("FRAME Ip".utf8)), expected: .truncatedFrameHeader(frame: 0)),
        Case(name: "FRAME line over 1024 bytes", bytes: FileTestSupport.y4m(tinyHeader, Array(("FRAME X" + String(repeating: "y", count: 2000) + "\n").utf8)),
             expected: .frameHeaderTooLong(frame: 0, limit: 1024)),
        Case(name: "truncated frame", bytes: FileTestSupport.y4m(tinyHeader, Array("FRAME\n".utf8) + tinyFrame.prefix(10)),
             expected: .truncatedFrame(frame: 0, expected: 12, available: 10)),
        Case(name: "second frame truncated", bytes: FileTestSupport.y4m(tinyHeader, Array("FRAME\n".utf8) + tinyFrame + Array("FRAME\n".utf8) + [1, 2]),
             expected: .truncatedFrame(frame: 1, expected: 12, available: 2)),
    ]

    /// Reads every frame; throws the first error.
    static func readAll(_ bytes: [UInt8]) throws(Y4MError) -> [VideoFrame] {
        var reader = try Y4MReader(bytes: bytes)
        var frames: [VideoFrame] = []
        while let frame = try reader.nextFrame() { frames.append(frame) }
        return frames
    }

    /// `rule` is prose; the tests pin the tag and the value.
    static func withoutRule(_ error: Y4MError) -> Y4MError {
        if case .invalidParameter(let tag, let value, _) = error { return .invalidParameter(tag: tag, value: value, rule: "") }
        return error
    }

    @Test("malformed streams throw a named error", arguments: malformed)
    func malformedStream(_ test: Case) {
        do {
            let frames = try Self.readAll(test.bytes)
            Issue.record("parsed \(frames.count) frames, expected \(test.expected)")
        } catch {
            #expect(Self.withoutRule(error) == test.expected)
            #expect(!error.description.isEmpty)
        }
    }

    @Test("errors name the parameter at fault")
    func errorDescriptions() {
        #expect(Y4MError.unsupportedColourspace("444").description.contains("C444"))
        #expect(Y4MError.unsupportedBitDepth(colourspace: "420p10", bits: 10).description.contains("C420p10 has 10-bit samples"))
        #expect(Y4MError.missingParameter("W").description.contains("W parameter"))
        #expect(Y4MError.truncatedFrame(frame: 3, expected: 12, available: 2).description.contains("frame 3"))
    }

    @Test("header fields, defaults and other parameters")
    func headerFields() throws {
        let header = try Y4MReader(bytes: FileTestSupport.y4m("YUV4MPEG2 W1280 H720 F30000:1001 It A128:117 C420mpeg2 XYSCSS=420MPEG2 Zfuture\n")).header
        #expect(header.width == 1280 && header.height == 720)
        #expect(header.frameRate == .init(30000, 1001))
        #expect(abs(header.framesPerSecond - 29.97) < 0.01)
        #expect(header.interlacing == .topFieldFirst)
        #expect(header.pixelAspect == .init(128, 117))
        #expect(header.colourspace == .c420mpeg2)
        #expect(header.otherParameters == ["XYSCSS=420MPEG2", "Zfuture"])
        #expect(header.frameByteCount == 1280 * 720 * 3 / 2)

        let minimal = try Y4MReader(bytes: FileTestSupport.y4m("YUV4MPEG2 W5 H3\n")).header
        #expect(minimal.colourspace == .c420jpeg)
        #expect(minimal.frameRate == .init(0, 0))
        #expect(minimal.framesPerSecond == 25)
        #expect(minimal.interlacing == nil && minimal.pixelAspect == nil)
        // Odd sizes round chroma up: 15 + 2 × (3 × 2).
        #expect(minimal.frameByteCount == 27)
    }

    @Test("a header serializes to the same header", arguments: [
        "YUV4MPEG2 W4 H2\n", "YUV4MPEG2 W1920 H1080 F60:1 Ip A1:1 C420jpeg XYSCSS=420JPEG\n",
        "YUV4MPEG2  W7 H9 I? C420paldv X Q\n",
    ])
    func headerRoundTrip(line: String) throws {
        let header = try Y4MHeader(parsing: Array(line.utf8).dropLast())
        #expect(try Y4MHeader(parsing: header.serialized().dropLast()) == header)
    }

    @Test("SyntheticCamera frames written as Y4M read back identical, from memory and from a file")
    func roundTrip() throws {
        for (width, height) in [(320, 180), (161, 121)] {
            var camera = try SyntheticCamera(width: width, height: height, framerate: 30)
            let frames = (0..<5).map { camera.nextFrame(captureTimeMicros: UInt64($0) * 33_333)! }
            let header = Y4MHeader(width: width, height: height, frameRate: .init(30, 1))
            let bytes = FileTestSupport.y4m(header, frames, frameParameters: " Ip XFRAME=note")

            var memory = try Y4MReader(bytes: bytes)
            #expect(memory.header == header)
            for (index, frame) in frames.enumerated() {
                #expect(try memory.nextFrame(captureTimeMicros: frame.captureTimeMicros) == frame)
                #expect(memory.frameIndex == index + 1)
            }
            #expect(try memory.nextFrame() == nil)

            let path = FileTestSupport.temporaryPath(".y4m")
            defer { FileTestSupport.remove(path) }
            try FileTestSupport.write(bytes, to: path)
            var file = try Y4MReader(path: path)
            for frame in frames { #expect(try file.nextFrame(captureTimeMicros: frame.captureTimeMicros) == frame) }
            #expect(try file.nextFrame() == nil)
            // Rewinding starts over; a copy keeps its own position.
            file.rewind()
            var copy = file
            _ = try copy.nextFrame()
            #expect(try file.nextFrame(captureTimeMicros: frames[0].captureTimeMicros) == frames[0])
            #expect(try copy.nextFrame(captureTimeMicros: frames[1].captureTimeMicros) == frames[1])
        }
    }

    @Test("a missing file is an I/O error naming it")
    func missingFile() {
        #expect(throws: Y4MError.io(MediaFileIOError(path: "/nonexistent/a.y4m", operation: "open", errno: ENOENT))) {
            try Y4MReader(path: "/nonexistent/a.y4m")
        }
    }

    @Test("reads what FFmpeg's yuv4mpegpipe muxer writes", .enabled(if: FileTestSupport.ffmpeg != nil, "\(FileTestSupport.skipMessage)"))
    func readsFFmpegOutput() throws {
        let path = FileTestSupport.temporaryPath(".y4m")
        defer { FileTestSupport.remove(path) }
        let result = try FileTestSupport.run(FileTestSupport.ffmpeg!, [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=176x144:rate=25", "-frames:v", "3", "-pix_fmt", "yuv420p",
            "-f", "yuv4mpegpipe", path,
        ])
        #expect(result.status == 0, "\(result.error)")
        var reader = try Y4MReader(path: path)
        #expect(reader.header.width == 176 && reader.header.height == 144 && reader.header.framesPerSecond == 25)
        var count = 0
        while let frame = try reader.nextFrame() {
            #expect(frame.width == 176 && frame.y.count == 176 * 144)
            count += 1
        }
        #expect(count == 3)
    }
}
