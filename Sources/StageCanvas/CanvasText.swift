extension Canvas {
    /// The largest glyph scale (at most `maximumScale`) at which `text` fits in `width` pixels, and
    /// how many characters fit at that scale (the text is cut when even scale 1 is too wide).
    static func textFit(_ text: String, width: Int, maximumScale: Int) -> (scale: Int, characters: Int) {
        let count = text.count
        for scale in stride(from: max(1, maximumScale), through: 1, by: -1)
        where TextGlyphs.textWidth(characters: count) * scale <= width {
            return (scale, count)
        }
        let fitting = (width + TextGlyphs.spacing) / (TextGlyphs.width + TextGlyphs.spacing)
        return (1, max(0, min(count, fitting)))
    }

    /// Writes `text` in the built-in 5×7 font, each glyph pixel a `scale`×`scale` block, with its
    /// top-left corner at `x`, `y`; ink outside the canvas is dropped. Only ink pixels are touched
    /// (a few hundred per name), through the buffer directly.
    public mutating func drawText(_ text: String, x: Int, y: Int, scale: Int, color: CanvasColor) {
        let scale = max(1, scale)
        let layout = layout
        let (width, height) = (self.width, self.height)
        pixels.withUnsafeMutableBufferPointer { buffer in
            var left = x
            for character in text {
                for column in 0..<TextGlyphs.width {
                    for row in 0..<TextGlyphs.height where TextGlyphs.isInk(character, column: column, row: row) {
                        let blockX = left + column * scale, blockY = y + row * scale
                        for py in max(0, blockY)..<min(height, blockY + scale) {
                            for px in max(0, blockX)..<min(width, blockX + scale) {
                                buffer[py * layout.width + px] = color.y
                                let chroma = (py / 2) * layout.chromaWidth + px / 2
                                buffer[layout.uOffset + chroma] = color.u
                                buffer[layout.vOffset + chroma] = color.v
                            }
                        }
                    }
                }
                left += (TextGlyphs.width + TextGlyphs.spacing) * scale
            }
        }
    }
}
