/// Read access to a canvas' I420 planes, valid only inside `Canvas.withPlanes`: what an encoder
/// copies into its own frame (e.g. with `av_image_copy` or libyuv's `I420Copy`).
public struct CanvasPlanes {
    public let width: Int
    public let height: Int
    public let y: UnsafePointer<UInt8>
    public let strideY: Int
    /// Chroma planes are `chromaWidth × chromaHeight`.
    public let u: UnsafePointer<UInt8>
    public let strideU: Int
    public let v: UnsafePointer<UInt8>
    public let strideV: Int

    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }
}

/// A canvas plane's geometry inside the canvas' single buffer.
struct CanvasPlaneLayout: Sendable, Hashable {
    let width: Int
    let height: Int
    let lumaCount: Int
    let chromaWidth: Int
    let chromaHeight: Int
    let chromaCount: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        lumaCount = width * height
        chromaWidth = (width + 1) / 2
        chromaHeight = (height + 1) / 2
        chromaCount = chromaWidth * chromaHeight
    }

    var uOffset: Int { lumaCount }
    var vOffset: Int { lumaCount + chromaCount }
    var totalCount: Int { lumaCount + 2 * chromaCount }
}
