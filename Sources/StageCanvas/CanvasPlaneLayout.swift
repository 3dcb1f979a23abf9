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
