public import StageMedia
public import StageLayout
import CYUV

/// The composed picture: an I420 canvas of the output size that tiles are scaled into with
/// libyuv (SIMD; no per-pixel Swift on full frames).
///
/// A value type (one buffer, Y then U then V, rows packed: stride = width, chroma half each way
/// rounded up), so it is `Sendable` and `makeVideoFrame()` hands out a snapshot.
public struct Canvas: Sendable {
    public let width: Int
    public let height: Int
    public var background: CanvasColor
    /// libyuv's filter for tile scaling: bilinear is the cheap default; box is sharper when
    /// shrinking a lot.
    public var scalingFilter: CanvasScalingFilter = .bilinear
    let layout: CanvasPlaneLayout
    var pixels: [UInt8]

    public init(width: Int, height: Int, background: CanvasColor = .background) {
        precondition(width > 0 && height > 0, "a canvas has a size")
        self.width = width
        self.height = height
        self.background = background
        layout = CanvasPlaneLayout(width: width, height: height)
        pixels = [UInt8](repeating: 0, count: layout.totalCount)
        clear()
    }

    public var bounds: LayoutRect { LayoutRect(x: 0, y: 0, width: width, height: height) }

    /// Paints the whole canvas with the background colour.
    public mutating func clear() {
        fill(bounds, with: background)
    }

    /// Paints `rect` (clipped to the canvas) with `color`.
    public mutating func fill(_ rect: LayoutRect, with color: CanvasColor) {
        let clipped = clip(rect)
        guard !clipped.isEmpty else { return }
        let layout = layout
        pixels.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            _ = I420Rect(base, Int32(layout.width),
                         base + layout.uOffset, Int32(layout.chromaWidth),
                         base + layout.vOffset, Int32(layout.chromaWidth),
                         Int32(clipped.x), Int32(clipped.y), Int32(clipped.width), Int32(clipped.height),
                         Int32(color.y), Int32(color.u), Int32(color.v))
        }
    }

    /// Scales `frame` into `tile` (clipped to the canvas, even-aligned): FILL stretches it, COVER
    /// crops the source's centre to the tile's aspect ratio first, CONTAIN fits it whole and
    /// paints the bars with the background.
    public mutating func draw(_ frame: VideoFrame, in tile: LayoutRect, fillMode: VideoFillMode) {
        let target = clip(tile).evenAlignedInside
        guard !target.isEmpty else { return }
        let placement = CanvasFit.placement(source: LayoutSize(width: frame.width, height: frame.height),
                                            tile: target, mode: fillMode)
        if placement.destination != target { fill(target, with: background) }
        scale(frame, crop: placement.crop, into: placement.destination)
    }

    /// A snapshot of the canvas as a frame (copies the planes out).
    public func makeVideoFrame(captureTimeMicros: UInt64 = 0) -> VideoFrame {
        let layout = layout
        return VideoFrame(width: width, height: height,
                          y: Array(pixels[0..<layout.uOffset]),
                          u: Array(pixels[layout.uOffset..<layout.vOffset]),
                          v: Array(pixels[layout.vOffset..<layout.totalCount]),
                          captureTimeMicros: captureTimeMicros)
    }

    /// Lends the planes to `body` as an ``EncoderPicture`` (for an encoder to copy); the
    /// pointers are valid only inside.
    public func withPlanes<R>(_ body: (EncoderPicture) throws -> R) rethrows -> R {
        let layout = layout
        return try pixels.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            return try body(EncoderPicture(width: width, height: height,
                                           y: base, yStride: layout.width,
                                           u: base + layout.uOffset, uStride: layout.chromaWidth,
                                           v: base + layout.vOffset, vStride: layout.chromaWidth))
        }
    }

    /// This canvas scaled to `size` (libyuv box filter; an exact 2×2 average for the half-size
    /// rendition), e.g. the 640×360 rendition of a 1280×720 canvas.
    public func downscaled(to size: LayoutSize) -> Canvas {
        var smaller = Canvas(width: size.width, height: size.height, background: background)
        downscale(into: &smaller)
        return smaller
    }

    /// This canvas scaled into `smaller` (its size), reusing its buffer: what an encoder loop
    /// does every frame.
    public func downscale(into smaller: inout Canvas) {
        smaller.scalingFilter = scalingFilter
        let source = layout
        let target = smaller.layout
        pixels.withUnsafeBufferPointer { from in
            smaller.pixels.withUnsafeMutableBufferPointer { to in
                let src = from.baseAddress!, dst = to.baseAddress!
                _ = I420Scale(src, Int32(source.width), src + source.uOffset, Int32(source.chromaWidth),
                              src + source.vOffset, Int32(source.chromaWidth), Int32(source.width), Int32(source.height),
                              dst, Int32(target.width), dst + target.uOffset, Int32(target.chromaWidth),
                              dst + target.vOffset, Int32(target.chromaWidth), Int32(target.width), Int32(target.height),
                              kFilterBox)
            }
        }
    }

    /// The luma, U and V values at a pixel (for tests and debugging).
    public func sample(x: Int, y: Int) -> CanvasColor {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "inside the canvas")
        let chroma = (y / 2) * layout.chromaWidth + x / 2
        return CanvasColor(y: pixels[y * width + x], u: pixels[layout.uOffset + chroma], v: pixels[layout.vOffset + chroma])
    }

    func clip(_ rect: LayoutRect) -> LayoutRect {
        let left = max(0, rect.x), top = max(0, rect.y)
        let right = min(width, rect.maxX), bottom = min(height, rect.maxY)
        return LayoutRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    /// I420Scale of `crop` of `frame` into `destination` (both even-aligned, inside their pictures).
    private mutating func scale(_ frame: VideoFrame, crop: LayoutRect, into destination: LayoutRect) {
        let layout = layout
        let filter = scalingFilter.libyuv
        let chromaStride = frame.chromaWidth
        frame.y.withUnsafeBufferPointer { sy in
            frame.u.withUnsafeBufferPointer { su in
                frame.v.withUnsafeBufferPointer { sv in
                    pixels.withUnsafeMutableBufferPointer { buffer in
                        let base = buffer.baseAddress!
                        let dstChroma = (destination.y / 2) * layout.chromaWidth + destination.x / 2
                        let srcChroma = (crop.y / 2) * chromaStride + crop.x / 2
                        _ = I420Scale(sy.baseAddress! + crop.y * frame.width + crop.x, Int32(frame.width),
                                      su.baseAddress! + srcChroma, Int32(chromaStride),
                                      sv.baseAddress! + srcChroma, Int32(chromaStride),
                                      Int32(crop.width), Int32(crop.height),
                                      base + destination.y * layout.width + destination.x, Int32(layout.width),
                                      base + layout.uOffset + dstChroma, Int32(layout.chromaWidth),
                                      base + layout.vOffset + dstChroma, Int32(layout.chromaWidth),
                                      Int32(destination.width), Int32(destination.height), filter)
                    }
                }
            }
        }
    }
}

/// libyuv's scaling filters, without exposing the C module.
public enum CanvasScalingFilter: Sendable, Hashable {
    case bilinear
    case box

    var libyuv: FilterMode {
        switch self {
        case .bilinear: kFilterBilinear
        case .box: kFilterBox
        }
    }
}
