public import StageMedia
public import StageLayout

extension Canvas {
    /// A tile for a participant without video: a flat colour derived from its participant id
    /// (`CanvasColor.placeholder(for:)`) with its user id centred in white, the glyphs scaled ×3
    /// when the name fits in 80% of the tile's width, else ×2, else ×1 (cut if still too long).
    public mutating func drawPlaceholder(participantId: String, userId: String, in tile: LayoutRect) {
        let target = clip(tile).evenAlignedInside
        guard !target.isEmpty else { return }
        fill(target, with: .placeholder(for: participantId))
        let text = userId.isEmpty ? participantId : userId
        let fit = Self.textFit(text, width: target.width * 4 / 5, maximumScale: 3)
        guard fit.characters > 0, TextGlyphs.height * fit.scale <= target.height else { return }
        let shown = String(text.prefix(fit.characters))
        let textWidth = TextGlyphs.textWidth(characters: fit.characters) * fit.scale
        let textHeight = TextGlyphs.height * fit.scale
        drawText(shown, x: target.x + (target.width - textWidth) / 2, y: target.y + (target.height - textHeight) / 2,
                 scale: fit.scale, color: .white)
    }

    /// A name label in the tile's bottom-left corner: white ×2 text (×1 in small tiles) on a
    /// black bar just wide enough for it, cut to the tile's width.
    public mutating func drawLabel(_ text: String, in tile: LayoutRect) {
        let target = clip(tile).evenAlignedInside
        guard !text.isEmpty, target.width >= 16, target.height >= 16 else { return }
        let padding = 4
        let fit = Self.textFit(text, width: target.width - 2 * padding, maximumScale: target.height >= 120 ? 2 : 1)
        guard fit.characters > 0 else { return }
        // Even sizes (rounded up) keep the bar on whole chroma samples.
        let barWidth = min(target.width, (TextGlyphs.textWidth(characters: fit.characters) * fit.scale + 2 * padding + 1) & ~1)
        let barHeight = (TextGlyphs.height * fit.scale + 2 * padding + 1) & ~1
        guard barHeight <= target.height else { return }
        fill(LayoutRect(x: target.x, y: target.maxY - barHeight, width: barWidth, height: barHeight), with: .labelBackdrop)
        drawText(String(text.prefix(fit.characters)), x: target.x + padding, y: target.maxY - barHeight + padding,
                 scale: fit.scale, color: .white)
    }

    /// Draws one layout tile: `frame` fitted per the tile's fill mode, or the placeholder when the
    /// participant has no video (or no frame yet); with `label`, the user id over the video.
    public mutating func draw(_ tile: Tile, frame: VideoFrame?, label: Bool = false) {
        if tile.hasVideo, let frame {
            draw(frame, in: tile.rect, fillMode: tile.fillMode)
            if label { drawLabel(tile.userId.isEmpty ? tile.participantId : tile.userId, in: tile.rect) }
        } else {
            drawPlaceholder(participantId: tile.participantId, userId: tile.userId, in: tile.rect)
        }
    }
}
