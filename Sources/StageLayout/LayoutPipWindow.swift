/// The PiP window's rectangle: its size from `pipWidth`/`pipHeight` (else the PiP participant's
/// video aspect fitted in a quarter of the canvas each way; 16:9 when unknown), placed in the
/// `pipPosition` corner `pipOffset` pixels from both nearest edges (IVS API_PipConfiguration),
/// clamped inside the canvas and even-aligned.
enum LayoutPipWindow {
    static func rect(for pip: PipLayoutConfiguration, canvas: LayoutRect, videoSize: LayoutSize?) -> LayoutRect {
        let aspect = videoSize.flatMap { $0.width > 0 && $0.height > 0 ? $0.widthOverHeight : nil } ?? 16.0 / 9.0
        let offset = evenFloor(min(pip.pipOffset, min(canvas.width, canvas.height) / 2))
        var width: Double
        var height: Double
        switch (pip.pipWidth, pip.pipHeight) {
        case let (givenWidth?, givenHeight?) where givenWidth > 0 && givenHeight > 0:
            (width, height) = (Double(givenWidth), Double(givenHeight))
        case let (givenWidth?, _) where givenWidth > 0:
            (width, height) = (Double(givenWidth), Double(givenWidth) / aspect)
        case let (_, givenHeight?) where givenHeight > 0:
            (width, height) = (Double(givenHeight) * aspect, Double(givenHeight))
        default:
            let box = (width: Double(canvas.width) / 4, height: Double(canvas.height) / 4)
            width = min(box.width, box.height * aspect)
            height = width / aspect
        }
        width = min(width, Double(canvas.width - 2 * offset))
        height = min(height, Double(canvas.height - 2 * offset))
        let size = LayoutSize(width: max(2, evenFloor(width)), height: max(2, evenFloor(height)))
        let left = canvas.x + offset
        let right = canvas.maxX - offset - size.width
        let top = canvas.y + offset
        let bottom = canvas.maxY - offset - size.height
        let (x, y): (Int, Int) = switch pip.pipPosition {
        case .topLeft: (left, top)
        case .topRight: (right, top)
        case .bottomLeft: (left, bottom)
        case .bottomRight: (right, bottom)
        }
        return LayoutRect(x: evenFloor(x), y: evenFloor(y), width: size.width, height: size.height)
    }
}
