import Foundation
import Testing
@testable import StageMedia

@Suite("IVF writer")
struct FileIVFWriterTests {
    typealias T = FileTestSupport

    /// The frames of an IVF file: (timestamp, data). Test-only reader.
    static func frames(ofIVF bytes: [UInt8]) -> [(timestamp: UInt64, data: [UInt8])] {
        var frames: [(UInt64, [UInt8])] = []
        var offset = Int(MediaFileLE.uint16(bytes, 6))
        while offset + 12 <= bytes.count {
            let size = Int(MediaFileLE.uint32(bytes, offset))
            let timestamp = UInt64(MediaFileLE.uint32(bytes, offset + 4)) | UInt64(MediaFileLE.uint32(bytes, offset + 8)) << 32
            guard offset + 12 + size <= bytes.count else { break }
            frames.append((timestamp, Array(bytes[(offset + 12)..<(offset + 12 + size)])))
            offset += 12 + size
        }
        return frames
    }

    @Test("header and frame headers follow the IVF layout; close patches the length")
    func layout() throws {
        let path = T.temporaryPath(".ivf")
        defer { T.remove(path) }
        let writer = try IVFWriter(path: path, width: 1280, height: 720)
        try writer.write(frame: [1, 2, 3], timestamp: 0)
        try writer.write(frame: [], timestamp: 3000)
        try writer.write(frame: [9], timestamp: 0x1_0000_1770)
        #expect(writer.frameCount == 3)
        try writer.close()
        try writer.close()
        #expect(throws: MediaWriterError.closed(path: path)) { try writer.write(frame: [0], timestamp: 1) }

        let bytes = try T.contents(of: path)
        #expect(Array(bytes[0..<4]) == Array("DKIF".utf8))
        #expect(MediaFileLE.uint16(bytes, 4) == 0)  // version
        #expect(MediaFileLE.uint16(bytes, 6) == 32)  // header size
        #expect(Array(bytes[8..<12]) == Array("VP80".utf8))
        #expect(MediaFileLE.uint16(bytes, 12) == 1280)
        #expect(MediaFileLE.uint16(bytes, 14) == 720)
        #expect(MediaFileLE.uint32(bytes, 16) == 90_000)  // timebase denominator
        #expect(MediaFileLE.uint32(bytes, 20) == 1)  // timebase numerator
        #expect(MediaFileLE.uint32(bytes, 24) == UInt32(clamping: UInt64(0x1_0000_1770) * 3 / 2))
        #expect(MediaFileLE.uint32(bytes, 28) == 0)
        let frames = Self.frames(ofIVF: bytes)
        #expect(frames.map(\.timestamp) == [0, 3000, 0x1_0000_1770])
        #expect(frames.map(\.data) == [[1, 2, 3], [], [9]])
        #expect(bytes.count == 32 + 3 * 12 + 4)
    }

    @Test("the length field is frames × mean interval, or the frame count")
    func lengthField() throws {
        let path = T.temporaryPath(".ivf")
        defer { T.remove(path) }
        let writer = try IVFWriter(path: path, width: 16, height: 16, timebaseNumerator: 1, timebaseDenominator: 1000)
        #expect(writer.length == 0)
        try writer.write(frame: [0], timestamp: 500)
        #expect(writer.length == 1)
        for index in 1..<30 { try writer.write(frame: [0], timestamp: 500 + UInt64(index) * 33) }
        #expect(writer.length == 30 * 33)
        try writer.close()
        #expect(MediaFileLE.uint32(try T.contents(of: path), 24) == 990)
    }

    @Test("arguments the header cannot hold are refused")
    func arguments() {
        let path = T.temporaryPath(".ivf")
        defer { T.remove(path) }
        #expect(throws: MediaWriterError.self) { try IVFWriter(path: path, width: 0, height: 10) }
        #expect(throws: MediaWriterError.self) { try IVFWriter(path: path, width: 70_000, height: 10) }
        #expect(throws: MediaWriterError.self) { try IVFWriter(path: path, fourCC: "VP8", width: 10, height: 10) }
        #expect(throws: MediaWriterError.self) { try IVFWriter(path: path, width: 10, height: 10, timebaseDenominator: 0) }
    }

    @Test("ffprobe reads VP8 in the written IVF: codec, size and duration", .enabled(if: FileTestSupport.ffmpeg != nil && FileTestSupport.ffprobe != nil, "\(FileTestSupport.skipMessage)"))
    func ffprobeValidates() throws {
        // Real VP8 frames: libvpx through FFmpeg, 30 frames at 30 fps in a 1/30 timebase.
        let source = T.temporaryPath(".ivf")
        let path = T.temporaryPath(".ivf")
        defer { T.remove(source); T.remove(path) }
        let encode = try T.run(T.ffmpeg!, [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30", "-frames:v", "30",
            "-c:v", "libvpx", "-b:v", "300k", "-f", "ivf", source,
        ])
        try #require(encode.status == 0, "\(encode.error)")
        let frames = Self.frames(ofIVF: try T.contents(of: source))
        try #require(frames.count == 30)

        // Rewritten on the 90 kHz RTP clock, as a recording of received RTP would be.
        let writer = try IVFWriter(path: path, width: 320, height: 240)
        for (index, frame) in frames.enumerated() { try writer.write(frame: frame.data, timestamp: 1_000_000 + UInt64(index) * 3000) }
        try writer.close()

        let probe = try T.probe(path)
        #expect(probe["codec_name"] == "vp8", "\(probe)")
        #expect(probe["width"] == "320" && probe["height"] == "240", "\(probe)")
        #expect(abs((Double(probe["duration"] ?? "") ?? 0) - 1.0) < 0.1, "\(probe)")
        let decode = try T.run(T.ffmpeg!, ["-v", "error", "-i", path, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.error.isEmpty, "\(decode.error)")
    }
}
