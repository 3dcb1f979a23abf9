/// How thumbnails are made: an optional bound on their size (the picture is scaled down to fit,
/// keeping its aspect) and the JPEG quantiser scale.
public struct ThumbnailConfiguration: Sendable, Equatable {
    /// Largest width and height of the JPEG; `nil` keeps the source size.
    public var maxWidth: Int?
    public var maxHeight: Int?
    /// MJPEG quantiser scale, as `ffmpeg -q:v`: 2 (best, largest) … 31 (worst, smallest).
    public var qscale: Int

    public init(maxWidth: Int? = nil, maxHeight: Int? = nil, qscale: Int = 5) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.qscale = qscale
    }

    func validate() throws(AVError) {
        guard (2...31).contains(qscale) else { throw .invalidConfiguration("JPEG qscale \(qscale): 2…31") }
        for bound in [maxWidth, maxHeight].compactMap({ $0 }) where !(16...8192).contains(bound) {
            throw .invalidConfiguration("thumbnail bound \(bound): 16…8192")
        }
    }

    /// The JPEG size for a `width × height` source: within the bounds, aspect kept, even.
    func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        var scale = 1.0
        if let maxWidth, width > maxWidth { scale = min(scale, Double(maxWidth) / Double(width)) }
        if let maxHeight, height > maxHeight { scale = min(scale, Double(maxHeight) / Double(height)) }
        let w = max(2, Int((Double(width) * scale).rounded()) & ~1)
        let h = max(2, Int((Double(height) * scale).rounded()) & ~1)
        return (w, h)
    }
}
