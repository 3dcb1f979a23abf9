import StageMedia
import Testing
@testable import StageCanvas
import StageLayout

@Suite("Canvas placeholder and text")
struct CanvasPlaceholderTests {
    @Test("Glyph table: 95 printable characters; 'T' has a full top row and a centre stem")
    func glyphs() {
        for column in 0..<5 { #expect(TextGlyphs.isInk("T", column: column, row: 0)) }
        for row in 0..<7 { #expect(TextGlyphs.isInk("T", column: 2, row: row)) }
        #expect(!TextGlyphs.isInk("T", column: 0, row: 3))
        for column in 0..<5 { for row in 0..<7 { #expect(!TextGlyphs.isInk(" ", column: column, row: row)) } }
        #expect(TextGlyphs.columns(of: "é") == TextGlyphs.columns(of: "?"))
        #expect(TextGlyphs.textWidth(characters: 3) == 17)
    }

    @Test("Text fit picks the biggest scale that fits, then cuts")
    func textFit() {
        #expect(Canvas.textFit("abc", width: 100, maximumScale: 3) == (3, 3))
        #expect(Canvas.textFit("abcdefghij", width: 100, maximumScale: 3) == (1, 10))
        #expect(Canvas.textFit(String(repeating: "x", count: 30), width: 60, maximumScale: 3) == (1, 10))
    }

    @Test("A placeholder is the participant's colour with the user id in white, centred")
    func placeholder() {
        var canvas = Canvas(width: 640, height: 360)
        let tile = LayoutRect(x: 320, y: 0, width: 320, height: 180)
        canvas.drawPlaceholder(participantId: "p1", userId: "T", in: tile)
        let colour = CanvasColor.placeholder(for: "p1")
        #expect(canvas.sample(x: 320, y: 0) == colour)
        #expect(canvas.sample(x: 639, y: 179) == colour)
        #expect(canvas.sample(x: 318, y: 0) == .background)
        // "T" ×3 is 15×21, centred: x 472..<487, y 79..<100; the stem is glyph column 2 → x 478..<481.
        #expect(canvas.sample(x: 479, y: 90).y == CanvasColor.white.y)
        #expect(canvas.sample(x: 473, y: 80).y == CanvasColor.white.y)
        #expect(canvas.sample(x: 473, y: 90) == colour)
        let inked = (0..<180).flatMap { y in (320..<640).map { (x: $0, y: y) } }
            .filter { canvas.sample(x: $0.x, y: $0.y).y == CanvasColor.white.y }
        #expect(inked.count == (5 + 6) * 9)  // 'T': 5 top + 6 more stem pixels, each 3×3
    }

    @Test("draw(tile:) uses the frame when there is video, the placeholder otherwise, and can label")
    func drawTile() {
        var canvas = Canvas(width: 640, height: 360)
        let rect = LayoutRect(x: 0, y: 0, width: 320, height: 180)
        let withVideo = Tile(participantId: "p1", userId: "ana", rect: rect, fillMode: .cover, zOrder: 0, role: .grid, hasVideo: true)
        canvas.draw(withVideo, frame: solidFrame(width: 64, height: 36, color: videoRed), label: true)
        #expect(isClose(canvas.sample(x: 300, y: 10), videoRed))
        #expect(canvas.sample(x: 1, y: 178) == CanvasColor.labelBackdrop)
        let stopped = Tile(participantId: "p2", userId: "bo", rect: rect, fillMode: .cover, zOrder: 0, role: .grid, hasVideo: false)
        canvas.draw(stopped, frame: solidFrame(width: 64, height: 36, color: videoRed))
        #expect(canvas.sample(x: 300, y: 10) == CanvasColor.placeholder(for: "p2"))
    }
}
