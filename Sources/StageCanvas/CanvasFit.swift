import StageLayout

/// The geometry of fitting a source picture into a tile, per `VideoFillMode` (pure arithmetic,
/// kept apart from the pixel work so it can be tested on its own).
enum CanvasFit {
    /// The part of a `source`-sized picture to scale (COVER crops the centre to the tile's aspect
    /// ratio; FILL and CONTAIN take it whole) and where in `tile` it goes (CONTAIN centres it
    /// letterboxed or pillarboxed; FILL and COVER fill the tile). Crop origins are even so the
    /// chroma planes line up; a crop narrower than the source has an even size.
    static func placement(source: LayoutSize, tile: LayoutRect, mode: VideoFillMode)
        -> (crop: LayoutRect, destination: LayoutRect) {
        let whole = LayoutRect(x: 0, y: 0, width: source.width, height: source.height)
        switch mode {
        case .fill:
            return (whole, tile)
        case .cover:
            // A source at most 2 % larger than the tile each way (a 640×360 layer in the 638×358
            // tile the default 2-pixel gap leaves) is cropped to the tile around its centre
            // rather than rescaled: the same picture to the eye, and a copy instead of a filter.
            if source.width >= tile.width, source.height >= tile.height,
               source.width * 50 <= tile.width * 51, source.height * 50 <= tile.height * 51 {
                return (LayoutRect(x: evenFloor((source.width - tile.width) / 2), y: evenFloor((source.height - tile.height) / 2),
                                   width: tile.width, height: tile.height), tile)
            }
            // Compare aspect ratios exactly: source.w / source.h vs tile.w / tile.h.
            if source.width * tile.height > source.height * tile.width {
                let width = max(2, evenFloor(source.height * tile.width / tile.height))
                let x = evenFloor((source.width - width) / 2)
                return (LayoutRect(x: x, y: 0, width: min(width, source.width), height: source.height), tile)
            } else if source.width * tile.height < source.height * tile.width {
                let height = max(2, evenFloor(source.width * tile.height / tile.width))
                let y = evenFloor((source.height - height) / 2)
                return (LayoutRect(x: 0, y: y, width: source.width, height: min(height, source.height)), tile)
            }
            return (whole, tile)
        case .contain:
            let size: LayoutSize
            if source.width * tile.height > source.height * tile.width {
                size = LayoutSize(width: tile.width, height: max(2, evenFloor(tile.width * source.height / source.width)))
            } else {
                size = LayoutSize(width: max(2, evenFloor(tile.height * source.width / source.height)), height: tile.height)
            }
            return (whole, tile.centred(size))
        }
    }
}
