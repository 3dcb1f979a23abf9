/// The grid with a featured participant: the featured slot takes the canvas left of a side strip
/// holding everyone else.
///
/// IVS says only that the featured participant "is placed in the featured slot"
/// (API_GridConfiguration), and that `videoAspectRatio` sets the *non-featured* display mode, so
/// the featured slot keeps its own shape. Chosen here, as in a speaker view: the others are
/// stacked in a strip on the right, up to 4 per column (more rows once there are more than 8, so
/// there are never more than 2 columns), each tile a quarter of the canvas height (or less) at
/// the grid's aspect ratio, the strip at most half the canvas wide; the featured slot fills what
/// is left (minus the gap). Alone, the featured participant fills the canvas.
enum LayoutFeatured {
    /// - Returns: the featured slot's rectangle and the others' rectangles, in order.
    static func split(others count: Int, in area: LayoutRect, aspect: Double, gap: Int)
        -> (featured: LayoutRect, others: [LayoutRect]) {
        guard count > 0 else { return (area.evenAlignedInside, []) }
        let rowsPerColumn = max(4, (count + 1) / 2)
        let columns = (count + rowsPerColumn - 1) / rowsPerColumn
        var tileHeight = Double(area.height - (rowsPerColumn - 1) * gap) / Double(rowsPerColumn)
        var tileWidth = tileHeight * aspect
        let maximumStripWidth = Double(area.width / 2)
        let stripWidth = Double(columns) * tileWidth + Double((columns - 1) * gap)
        if stripWidth > maximumStripWidth {
            tileWidth = (maximumStripWidth - Double((columns - 1) * gap)) / Double(columns)
            tileHeight = tileWidth / aspect
        }
        let strip = evenFloor(Double(columns) * tileWidth.rounded(.down) + Double((columns - 1) * gap)) + 2
        let stripArea = LayoutRect(x: area.maxX - strip, y: area.y, width: strip, height: area.height)
        let featured = LayoutRect(x: area.x, y: area.y, width: area.width - strip - gap, height: area.height)
        let others = LayoutCells.cells(count: count, in: stripArea, aspect: aspect, gap: gap)
        return (featured.evenAlignedInside, others)
    }
}
