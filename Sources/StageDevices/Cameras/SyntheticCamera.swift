public import StageMedia
/// A camera that draws a test pattern: a ``FrameStamp`` band on top, 75% colour bars, a box
/// bouncing across them and a scrolling luma ramp at the bottom, so every frame has motion and
/// carries its frame number and capture time. Frames are a pure function of the frame number
/// and the capture time, so tests can regenerate them.
public struct SyntheticCamera: VideoSource {
    public static let maximumDimension = 4096
    public static let maximumPixels = 4096 * 2304

    public let width: Int
    public let height: Int
    public let framerate: Double
    /// Number of the next frame (the first is 0); wraps at 2³².
    public private(set) var frameNumber: UInt32 = 0

    /// Bars and the empty stamp band, drawn once.
    private let background: VideoFrame
    /// First row below the stamp band and its margin.
    private let contentTop: Int
    /// First row of the luma ramp.
    private let rampTop: Int

    /// - Parameters:
    ///   - width, height: 16…4096 each, at most 4096 × 2304 pixels in all.
    ///   - framerate: frames per second, above 0 and at most 240 (only sets the motion speed).
    public init(width: Int = 1280, height: Int = 720, framerate: Double = 30) throws(MediaDeviceError) {
        guard (16...Self.maximumDimension).contains(width), (16...Self.maximumDimension).contains(height),
            width * height <= Self.maximumPixels
        else { throw .invalidVideoSize(width: width, height: height) }
        guard framerate > 0, framerate <= 240 else { throw .invalidFramerate(framerate) }
        self.width = width
        self.height = height
        self.framerate = framerate
        let band = FrameStamp.fits(width: width, height: height) ? FrameStamp.bandHeight(forWidth: width) : 0
        // A quiet gap under the stamp keeps the bars' chroma and edges away from its cells.
        contentTop = min(height - 2, band + (band > 0 ? max(2, width / 160) * 2 : 0))
        rampTop = contentTop + (height - contentTop) * 5 / 6
        background = Self.drawBackground(width: width, height: height, barsTop: contentTop, barsBottom: rampTop)
    }

    /// The next frame: never `nil`.
    public mutating func nextFrame(captureTimeMicros: UInt64) -> VideoFrame? {
        let frame = frame(number: frameNumber, captureTimeMicros: captureTimeMicros)
        frameNumber &+= 1
        return frame
    }

    /// Frame `number` as ``nextFrame(captureTimeMicros:)`` draws it.
    public func frame(number: UInt32, captureTimeMicros: UInt64) -> VideoFrame {
        var frame = background
        frame.captureTimeMicros = captureTimeMicros
        drawRamp(into: &frame, number: number)
        drawBox(into: &frame, number: number)
        FrameStamp.write(into: &frame, frameNumber: number, captureTimeMicros: captureTimeMicros)
        return frame
    }

    /// 75% colour bars (ITU-R BT.601 limited range Y, Cb, Cr): white, yellow, cyan, green,
    /// magenta, red, blue.
    static let bars: [(y: UInt8, u: UInt8, v: UInt8)] = [
        (180, 128, 128), (162, 44, 142), (131, 156, 44), (112, 72, 58), (84, 184, 198), (65, 100, 212), (35, 212, 114),
    ]

    private static func drawBackground(width: Int, height: Int, barsTop: Int, barsBottom: Int) -> VideoFrame {
        var frame = VideoFrame(width: width, height: height, luma: 16, chroma: 128)
        for y in barsTop..<barsBottom {
            for x in 0..<width {
                frame.y[y * width + x] = bars[x * bars.count / width].y
            }
        }
        for cy in (barsTop + 1) / 2..<(barsBottom / 2) {
            for cx in 0..<frame.chromaWidth {
                let bar = bars[min(bars.count - 1, cx * 2 * bars.count / width)]
                frame.u[cy * frame.chromaWidth + cx] = bar.u
                frame.v[cy * frame.chromaWidth + cx] = bar.v
            }
        }
        return frame
    }

    /// A grey ramp under the bars scrolling left by 4 px a frame.
    private func drawRamp(into frame: inout VideoFrame, number: UInt32) {
        let shift = Int(number % UInt32(width)) * 4
        for x in 0..<width {
            let value = UInt8(16 + ((x + shift) % width) * 219 / width)
            for y in rampTop..<height { frame.y[y * width + x] = value }
        }
    }

    /// A white box with a black core bouncing over the bars, crossing them in about 2 seconds.
    private func drawBox(into frame: inout VideoFrame, number: UInt32) {
        let areaHeight = rampTop - contentTop
        let side = max(2, min(areaHeight, width) / 3) & ~1
        guard side < areaHeight, side < width else { return }
        let time = Double(number) / framerate
        let x = Self.triangle(time * Double(width - side) / 2, span: width - side)
        let y = contentTop + Self.triangle(time * Double(areaHeight - side) / 3, span: areaHeight - side)
        let core = side / 4
        for row in y..<(y + side) {
            for column in x..<(x + side) {
                let inCore = row >= y + core && row < y + side - core && column >= x + core && column < x + side - core
                frame.y[row * width + column] = inCore ? 16 : 235
            }
        }
        for cy in (y / 2)..<min(frame.chromaHeight, (y + side) / 2) {
            for cx in (x / 2)..<min(frame.chromaWidth, (x + side) / 2) {
                frame.u[cy * frame.chromaWidth + cx] = 128
                frame.v[cy * frame.chromaWidth + cx] = 128
            }
        }
    }

    /// Position bouncing between 0 and `span`.
    private static func triangle(_ distance: Double, span: Int) -> Int {
        guard span > 0 else { return 0 }
        let period = 2 * span
        let position = Int(distance.rounded(.down)) % period
        return position <= span ? position : period - position
    }
}
