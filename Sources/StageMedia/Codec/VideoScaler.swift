/// Resizes I420 pictures in plain Swift, for simulcast layers (½, ¼) and thumbnails.
///
/// Each output sample is the rounded mean of the box of input samples it covers
/// (`[d·S/D, (d+1)·S/D)` per axis, at least one sample), per plane. That is an exact 2×2 / 4×4
/// average for integer factors, covers every input sample for odd sizes, and degrades to
/// nearest-neighbour when enlarging.
public enum VideoScaler {
    /// Scales `frame` to `width × height` (chroma planes to `(width + 1) / 2 × (height + 1) / 2`).
    public static func scale(_ frame: VideoFrame, toWidth width: Int, height: Int) -> VideoFrame {
        precondition(width > 0 && height > 0, "a frame has a size")
        if width == frame.width && height == frame.height { return frame }
        let (chromaWidth, chromaHeight) = VideoFrame.chromaSize(width: width, height: height)
        return VideoFrame(
            width: width, height: height,
            y: scalePlane(frame.y, frame.width, frame.height, width, height),
            u: scalePlane(frame.u, frame.chromaWidth, frame.chromaHeight, chromaWidth, chromaHeight),
            v: scalePlane(frame.v, frame.chromaWidth, frame.chromaHeight, chromaWidth, chromaHeight),
            captureTimeMicros: frame.captureTimeMicros)
    }

    /// Scales down by an integer factor as WebRTC's `scaleResolutionDownBy` does:
    /// `max(1, width / factor) × max(1, height / factor)`.
    public static func scale(_ frame: VideoFrame, downBy factor: Int) -> VideoFrame {
        precondition(factor >= 1, "scale factor is at least 1")
        let size = scaledSize(width: frame.width, height: frame.height, downBy: factor)
        return scale(frame, toWidth: size.width, height: size.height)
    }

    /// The size of a picture scaled down by `factor` (integer division, at least 1).
    public static func scaledSize(width: Int, height: Int, downBy factor: Int) -> (width: Int, height: Int) {
        (max(1, width / factor), max(1, height / factor))
    }

    /// Box-filters one packed plane `sw × sh` to `dw × dh`.
    static func scalePlane(_ source: [UInt8], _ sw: Int, _ sh: Int, _ dw: Int, _ dh: Int) -> [UInt8] {
        let xSpans = spans(source: sw, destination: dw)
        let ySpans = spans(source: sh, destination: dh)
        return [UInt8](unsafeUninitializedCapacity: dw * dh) { out, count in
            source.withUnsafeBufferPointer { src in
                for dy in 0..<dh {
                    let (y0, y1) = ySpans[dy]
                    for dx in 0..<dw {
                        let (x0, x1) = xSpans[dx]
                        var sum = 0
                        for sy in y0..<y1 {
                            let row = sy * sw
                            for sx in x0..<x1 { sum &+= Int(src[row + sx]) }
                        }
                        let n = (y1 - y0) * (x1 - x0)
                        out[dy * dw + dx] = UInt8(truncatingIfNeeded: (sum + n / 2) / n)
                    }
                }
            }
            count = dw * dh
        }
    }

    /// Half-open source ranges for each destination index along one axis.
    private static func spans(source: Int, destination: Int) -> [(Int, Int)] {
        (0..<destination).map { d in
            let start = min(d * source / destination, source - 1)
            let end = max(start + 1, min(source, (d + 1) * source / destination))
            return (start, end)
        }
    }
}
