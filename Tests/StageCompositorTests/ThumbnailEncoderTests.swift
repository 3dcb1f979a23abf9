import Foundation
import StageMedia
import Testing
@testable import StageCompositor

@Suite("ThumbnailEncoder: JPEG of a canvas frame", .serialized)
struct ThumbnailEncoderTests {
    typealias Support = EncoderTestSupport

    private func probe(_ jpeg: [UInt8]) throws -> [String: Any]? {
        let path = try Support.write([jpeg], suffix: ".jpg")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let json = try Support.probeJSON(path, ["-show_entries", "stream=codec_name,width,height,pix_fmt,color_range"])
        return (json["streams"] as? [[String: Any]])?.first
    }

    @Test("Full size and bounded: mjpeg of the right size, full range")
    func sizes() throws {
        let frame = try Support.pattern(width: 1280, height: 720, count: 15)[3]
        let full = try ThumbnailEncoder().encode(frame)
        #expect(full.starts(with: [0xFF, 0xD8]) && full.suffix(2) == [0xFF, 0xD9])
        let small = try ThumbnailEncoder(configuration: ThumbnailConfiguration(maxWidth: 320, qscale: 8))
        let thumbnail = try small.encode(frame)
        #expect(thumbnail.count < full.count)
        // The same encoder again (context reused), then a different source size (reopened).
        #expect(try small.encode(frame).count == thumbnail.count)
        let square = try small.encode(VideoFrame(width: 480, height: 480, luma: 200))
        guard Support.ffprobe != nil else { return }
        let fullInfo = try probe(full)
        #expect(fullInfo?["codec_name"] as? String == "mjpeg")
        #expect(fullInfo?["width"] as? Int == 1280 && fullInfo?["height"] as? Int == 720)
        #expect(fullInfo?["pix_fmt"] as? String == "yuvj420p")
        let smallInfo = try probe(thumbnail)
        #expect(smallInfo?["width"] as? Int == 320 && smallInfo?["height"] as? Int == 180)
        let squareInfo = try probe(square)
        #expect(squareInfo?["width"] as? Int == 320 && squareInfo?["height"] as? Int == 320)
    }

    @Test("Output size: aspect kept, even, bounds honoured")
    func outputSize() {
        let both = ThumbnailConfiguration(maxWidth: 640, maxHeight: 200)
        #expect(both.outputSize(width: 1280, height: 720) == (356, 200))
        #expect(ThumbnailConfiguration().outputSize(width: 1280, height: 720) == (1280, 720))
        #expect(ThumbnailConfiguration(maxWidth: 2000).outputSize(width: 1280, height: 720) == (1280, 720))
        #expect(throws: AVError.self) { try ThumbnailEncoder(configuration: ThumbnailConfiguration(qscale: 1)) }
    }

    @Test("Video-range black and white become JPEG's full-range 0 and 255")
    func range() {
        #expect(ThumbnailRange.luma[16] == 0 && ThumbnailRange.luma[235] == 255 && ThumbnailRange.luma[0] == 0)
        #expect(ThumbnailRange.chroma[128] == 128 && ThumbnailRange.chroma[16] <= 1 && ThumbnailRange.chroma[240] == 255)
    }
}
