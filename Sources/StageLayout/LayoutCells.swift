/// Balanced gallery geometry: `count` equal tiles in a rectangle, like a video-call gallery.
///
/// IVS does not document its grid geometry, so this follows what viewers know from gallery views:
/// the column count is the one giving the largest tiles (for a 16:9 canvas with 16:9 tiles that
/// is `ceil(sqrt(n))`: 2 → 2×1, 3–4 → 2×2, 5–6 → 3×2, 7–9 → 3×3, 10–12 → 4×3); rows are filled
/// left to right, top to bottom; the last, shorter row is centred, and the whole block is
/// centred in the rectangle. With an aspect ratio every tile has that shape; without one (nil)
/// tiles fill their cells (`columns = ceil(sqrt(n))`). Every rectangle is even-aligned.
enum LayoutCells {
    static func cells(count: Int, in area: LayoutRect, aspect: Double?, gap: Int) -> [LayoutRect] {
        guard count > 0, !area.isEmpty else { return [] }
        let columns = aspect.map { bestColumnCount(count: count, in: area.size, aspect: $0, gap: gap) }
            ?? Int(Double(count).squareRoot().rounded(.up))
        let rows = (count + columns - 1) / columns
        let cellWidth = Double(area.width - (columns - 1) * gap) / Double(columns)
        let cellHeight = Double(area.height - (rows - 1) * gap) / Double(rows)
        let tile: LayoutSize
        if let aspect {
            let width = min(cellWidth, cellHeight * aspect)
            tile = LayoutSize(width: evenFloor(width), height: evenFloor(width / aspect))
        } else {
            tile = LayoutSize(width: evenFloor(cellWidth), height: evenFloor(cellHeight))
        }
        guard tile.width > 0, tile.height > 0 else { return [] }
        let blockHeight = rows * tile.height + (rows - 1) * gap
        let top = area.y + (area.height - blockHeight) / 2
        var rects: [LayoutRect] = []
        rects.reserveCapacity(count)
        for row in 0..<rows {
            let inRow = min(columns, count - row * columns)
            let rowWidth = inRow * tile.width + (inRow - 1) * gap
            let left = area.x + (area.width - rowWidth) / 2
            let y = evenFloor(top + row * (tile.height + gap))
            for column in 0..<inRow {
                let x = evenFloor(left + column * (tile.width + gap))
                rects.append(LayoutRect(x: x, y: y, width: tile.width, height: tile.height))
            }
        }
        return rects
    }

    /// The column count whose tiles of shape `aspect` are widest (fewest columns on a tie).
    static func bestColumnCount(count: Int, in area: LayoutSize, aspect: Double, gap: Int) -> Int {
        var best = 1
        var bestWidth = -1.0
        for columns in 1...count {
            let rows = (count + columns - 1) / columns
            let cellWidth = Double(area.width - (columns - 1) * gap) / Double(columns)
            let cellHeight = Double(area.height - (rows - 1) * gap) / Double(rows)
            let width = min(cellWidth, cellHeight * aspect)
            if width > bestWidth + 1e-9 {
                best = columns
                bestWidth = width
            }
        }
        return best
    }
}
