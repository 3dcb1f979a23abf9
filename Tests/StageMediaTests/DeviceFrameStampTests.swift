import Foundation
import Testing
@testable import StageDevices
@testable import StageMedia

@Suite("Frame stamp")
struct DeviceFrameStampTests {
    static func stamped(width: Int, height: Int, frameNumber: UInt32, time: UInt64) throws -> VideoFrame {
        try SyntheticCamera(width: width, height: height).frame(number: frameNumber, captureTimeMicros: time)
    }

    /// Adds uniform noise in ±`amplitude` to every luma sample.
    static func addNoise(_ frame: VideoFrame, amplitude: Int, seed: UInt64) -> VideoFrame {
        var generator = SeededGenerator(seed: seed)
        var frame = frame
        for index in frame.y.indices {
            let value = Int(frame.y[index]) + Int.random(in: -amplitude...amplitude, using: &generator)
            frame.y[index] = UInt8(clamping: value)
        }
        return frame
    }

    /// Box-filter downscale by an integer factor (what a simple scaler does to a simulcast layer).
    static func downscale(_ frame: VideoFrame, by factor: Int) -> VideoFrame {
        func scale(_ plane: [UInt8], width: Int, height: Int, outWidth: Int, outHeight: Int) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: outWidth * outHeight)
            for y in 0..<outHeight {
                for x in 0..<outWidth {
                    var sum = 0
                    var count = 0
                    for sy in (y * factor)..<min(height, y * factor + factor) {
                        for sx in (x * factor)..<min(width, x * factor + factor) {
                            sum += Int(plane[sy * width + sx])
                            count += 1
                        }
                    }
                    out[y * outWidth + x] = UInt8(sum / max(1, count))
                }
            }
            return out
        }
        let width = frame.width / factor
        let height = frame.height / factor
        let chromaWidth = (width + 1) / 2
        let chromaHeight = (height + 1) / 2
        return VideoFrame(
            width: width, height: height,
            y: scale(frame.y, width: frame.width, height: frame.height, outWidth: width, outHeight: height),
            u: scale(frame.u, width: frame.chromaWidth, height: frame.chromaHeight, outWidth: chromaWidth, outHeight: chromaHeight),
            v: scale(frame.v, width: frame.chromaWidth, height: frame.chromaHeight, outWidth: chromaWidth, outHeight: chromaHeight),
            captureTimeMicros: frame.captureTimeMicros)
    }

    /// JPEG-ish damage: a 5×5 box blur, then each pixel pulled halfway to its 8×8 block's mean
    /// (the DC term survives, detail does not) and rounded to a step of 8 (coarse quantization).
    static func blur(_ frame: VideoFrame) -> VideoFrame {
        let width = frame.width
        let height = frame.height
        var blurred = frame.y
        for y in 0..<height {
            for x in 0..<width {
                var sum = 0
                var count = 0
                for sy in max(0, y - 2)...min(height - 1, y + 2) {
                    for sx in max(0, x - 2)...min(width - 1, x + 2) {
                        sum += Int(frame.y[sy * width + sx])
                        count += 1
                    }
                }
                blurred[y * width + x] = UInt8(sum / count)
            }
        }
        var out = frame
        for blockY in stride(from: 0, to: height, by: 8) {
            for blockX in stride(from: 0, to: width, by: 8) {
                let rows = blockY..<min(height, blockY + 8)
                let columns = blockX..<min(width, blockX + 8)
                var sum = 0
                for y in rows { for x in columns { sum += Int(blurred[y * width + x]) } }
                let mean = sum / (rows.count * columns.count)
                for y in rows {
                    for x in columns {
                        let value = (Int(blurred[y * width + x]) + mean) / 2
                        out.y[y * width + x] = UInt8(clamping: (value + 4) / 8 * 8)
                    }
                }
            }
        }
        return out
    }

    /// Paints data cell `cell` (0..<114) of a stamp with the opposite colour.
    static func flipCell(_ frame: inout VideoFrame, cell: Int) {
        flip(&frame, row: cell / 38, column: cell % 38 + 2)
    }

    /// Paints the cell at `row`, `column` (0, 1: the reference cells) with the opposite colour.
    static func flip(_ frame: inout VideoFrame, row: Int, column: Int) {
        let width = frame.width
        let rows = FrameStamp.edge(row, width: width)..<FrameStamp.edge(row + 1, width: width)
        let columns = FrameStamp.edge(column, width: width)..<FrameStamp.edge(column + 1, width: width)
        let isWhite = frame.y[rows.lowerBound * width + columns.lowerBound] > 128
        for y in rows { for x in columns { frame.y[y * width + x] = isWhite ? 16 : 235 } }
    }

    static let values: [(UInt32, UInt64)] = [(0, 0), (1, 33_333), (0xDEAD_BEEF, 0x0123_4567_89AB_CDEF), (.max, .max), (12345, 1_700_000_000_000_000)]

    @Test("reads back what it wrote, at every size", arguments: [(1280, 720), (640, 360), (320, 180), (161, 121), (720, 1280)])
    func cleanRoundTrip(width: Int, height: Int) throws {
        for (number, time) in Self.values {
            let frame = try Self.stamped(width: width, height: height, frameNumber: number, time: time)
            let stamp = try #require(FrameStamp.read(from: frame))
            #expect(stamp.frameNumber == number && stamp.captureTimeMicros == time)
        }
    }

    @Test("survives ±40 luma noise")
    func noise() throws {
        for (index, (number, time)) in Self.values.enumerated() {
            let frame = Self.addNoise(try Self.stamped(width: 640, height: 360, frameNumber: number, time: time), amplitude: 40, seed: UInt64(index))
            let stamp = try #require(FrameStamp.read(from: frame))
            #expect(stamp.frameNumber == number && stamp.captureTimeMicros == time)
        }
    }

    @Test("survives 4× box downscaling of 720p (the 180p simulcast layer), also with noise", arguments: [2, 4])
    func downscaled(factor: Int) throws {
        for (index, (number, time)) in Self.values.enumerated() {
            let full = try Self.stamped(width: 1280, height: 720, frameNumber: number, time: time)
            let small = Self.downscale(full, by: factor)
            #expect(small.width == 1280 / factor)
            let stamp = try #require(FrameStamp.read(from: small))
            #expect(stamp.frameNumber == number && stamp.captureTimeMicros == time)
            let noisy = try #require(FrameStamp.read(from: Self.addNoise(small, amplitude: 40, seed: 100 + UInt64(index))))
            #expect(noisy.frameNumber == number && noisy.captureTimeMicros == time)
        }
    }

    @Test("survives JPEG-ish blurring, at full size and after a 4× downscale")
    func blurred() throws {
        for (number, time) in Self.values.prefix(3) {
            let full = try Self.stamped(width: 1280, height: 720, frameNumber: number, time: time)
            for frame in [Self.blur(Self.downscale(full, by: 2)), Self.blur(Self.downscale(full, by: 4))] {
                let stamp = try #require(FrameStamp.read(from: frame))
                #expect(stamp.frameNumber == number && stamp.captureTimeMicros == time)
            }
        }
    }

    @Test("a corrupted stamp reads as nil, never as a wrong number")
    func corrupted() throws {
        var generator = SeededGenerator(seed: 7)
        let clean = try Self.stamped(width: 320, height: 180, frameNumber: 0xDEAD_BEEF, time: 0x0123_4567_89AB_CDEF)
        var wrong = 0
        for trial in 0..<300 {
            var frame = clean
            // 1 to 3 flipped cells: the CRC-16 detects every such error.
            var cells = Set<Int>()
            while cells.count < 1 + trial % 3 { cells.insert(Int.random(in: 0..<114, using: &generator)) }
            for cell in cells { Self.flipCell(&frame, cell: cell) }
            if FrameStamp.read(from: frame) != nil { wrong += 1 }
        }
        #expect(wrong == 0)

        // Reference cells swapped, or washed out to grey: unreadable.
        var swapped = clean
        Self.flip(&swapped, row: 1, column: 0)
        Self.flip(&swapped, row: 1, column: 1)
        #expect(FrameStamp.read(from: swapped) == nil)
        var grey = clean
        for index in 0..<(FrameStamp.bandHeight(forWidth: 320) * 320) { grey.y[index] = 128 }
        #expect(FrameStamp.read(from: grey) == nil)
    }

    @Test("frames without a stamp read as nil; too small frames take none")
    func absent() {
        #expect(FrameStamp.read(from: VideoFrame(width: 320, height: 180)) == nil)
        var generator = SeededGenerator(seed: 11)
        for _ in 0..<50 {
            let random = VideoFrame(
                width: 160, height: 90, y: (0..<(160 * 90)).map { _ in UInt8.random(in: 0...255, using: &generator) },
                u: [UInt8](repeating: 128, count: 80 * 45), v: [UInt8](repeating: 128, count: 80 * 45))
            #expect(FrameStamp.read(from: random) == nil)
        }
        var small = VideoFrame(width: 64, height: 64)
        #expect(!FrameStamp.write(into: &small, frameNumber: 1, captureTimeMicros: 2))
        #expect(small == VideoFrame(width: 64, height: 64))
        #expect(FrameStamp.read(from: small) == nil)
        #expect(!FrameStamp.fits(width: 1280, height: 90))
    }

    @Test("CRC-16/CCITT-FALSE check value")
    func crc() {
        #expect(FrameStamp.crc16(Array("123456789".utf8)[...]) == 0x29B1)
    }

    @Test("survives VP8 at 150 kbit/s after scaling 720p to 180p (libvpx through FFmpeg)",
          .enabled(if: FileTestSupport.ffmpeg != nil, "\(FileTestSupport.skipMessage)"))
    func vp8() throws {
        let source = FileTestSupport.temporaryPath(".y4m")
        let encoded = FileTestSupport.temporaryPath(".ivf")
        let decoded = FileTestSupport.temporaryPath(".y4m")
        defer { [source, encoded, decoded].forEach(FileTestSupport.remove) }

        var camera = try SyntheticCamera(width: 1280, height: 720, framerate: 30)
        let times = (0..<30).map { 5_000_000 + UInt64($0) * 33_333 }
        let frames = times.map { camera.nextFrame(captureTimeMicros: $0)! }
        try FileTestSupport.write(FileTestSupport.y4m(Y4MHeader(width: 1280, height: 720), frames), to: source)

        let ffmpeg = FileTestSupport.ffmpeg!
        let encode = try FileTestSupport.run(ffmpeg, [
            "-v", "error", "-y", "-i", source, "-vf", "scale=320:180:flags=bilinear", "-c:v", "libvpx", "-b:v", "150k",
            "-deadline", "realtime", "-cpu-used", "8", "-lag-in-frames", "0", "-f", "ivf", encoded,
        ])
        try #require(encode.status == 0, "\(encode.error)")
        let decode = try FileTestSupport.run(ffmpeg, ["-v", "error", "-y", "-i", encoded, "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", decoded])
        try #require(decode.status == 0, "\(decode.error)")

        var reader = try Y4MReader(path: decoded)
        #expect(reader.header.width == 320 && reader.header.height == 180)
        var exact = 0
        var index = 0
        while let frame = try reader.nextFrame() {
            defer { index += 1 }
            guard let stamp = FrameStamp.read(from: frame) else { continue }
            // A stamp read is always one that was written, and never a later frame's.
            let written = Int(stamp.frameNumber)
            #expect(written <= index && times[written] == stamp.captureTimeMicros, "frame \(index) read as \(stamp)")
            if written == index { exact += 1 }
        }
        #expect(index == 30)
        #expect(exact >= 27, "only \(exact) of 30 frames read exactly")
    }
}
