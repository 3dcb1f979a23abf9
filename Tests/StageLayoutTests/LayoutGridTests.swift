import Testing
@testable import StageLayout

@Suite("Grid layout")
struct LayoutGridTests {
    /// n participants → (columns of the first row, number of rows) on a 16:9 canvas with 16:9 tiles.
    @Test("Balanced gallery for 1–12 participants", arguments: [
        (1, 1, 1), (2, 2, 1), (3, 2, 2), (4, 2, 2), (5, 3, 2), (6, 3, 2),
        (7, 3, 3), (8, 3, 3), (9, 3, 3), (10, 4, 3), (11, 4, 3), (12, 4, 3),
    ])
    func gallery(count: Int, columns: Int, rows: Int) {
        let tiles = gridLayout().tiles(for: layoutParticipants(count))
        #expect(tiles.count == count)
        #expect(tiles.map(\.participantId) == (1...count).map { "p\($0)" })
        let rowTops = Set(tiles.map(\.rect.y)).sorted()
        #expect(rowTops.count == rows)
        #expect(tiles.filter { $0.rect.y == rowTops[0] }.count == columns)
        let canvas = LayoutRect(x: 0, y: 0, width: 1280, height: 720)
        for tile in tiles {
            #expect(tile.rect.isEvenAligned, "\(tile)")
            #expect(canvas.contains(tile.rect), "\(tile)")
            #expect(tile.fillMode == .cover && tile.role == .grid && tile.zOrder == 0)
            #expect(abs(tile.rect.size.widthOverHeight - 16.0 / 9.0) < 0.03, "\(tile)")
        }
        for (index, tile) in tiles.enumerated() {
            for other in tiles[(index + 1)...] { #expect(!tile.rect.intersects(other.rect), "\(tile) \(other)") }
        }
        // The last row is centred: its tiles' middle is the canvas' middle (within rounding).
        let lastRow = tiles.filter { $0.rect.y == rowTops.last }
        let middle = (lastRow.first!.rect.x + lastRow.last!.rect.maxX) / 2
        #expect(abs(middle - 640) <= 2)
    }

    @Test("One participant fills the canvas; two sit side by side with the 2 px default gap")
    func oneAndTwo() {
        #expect(gridLayout().tiles(for: layoutParticipants(1)).map(\.rect)
            == [LayoutRect(x: 0, y: 0, width: 1280, height: 720)])
        let two = gridLayout().tiles(for: layoutParticipants(2)).map(\.rect)
        #expect(two == [LayoutRect(x: 0, y: 180, width: 638, height: 358),
                        LayoutRect(x: 640, y: 180, width: 638, height: 358)])
        #expect(two[1].x - two[0].maxX == 2)
    }

    @Test("gridGap is the space between neighbours")
    func gap() {
        let tiles = gridLayout(GridLayoutConfiguration(gridGap: 20)).tiles(for: layoutParticipants(4)).map(\.rect)
        #expect(tiles[1].x - tiles[0].maxX == 20)
        #expect(tiles[2].y - tiles[0].maxY == 20)
    }

    @Test("SQUARE and PORTRAIT shape the tiles", arguments: [
        (VideoAspectRatio.square, 1.0), (.portrait, 0.75), (.video, 16.0 / 9.0),
    ])
    func aspect(ratio: VideoAspectRatio, expected: Double) {
        let tiles = gridLayout(GridLayoutConfiguration(videoAspectRatio: ratio)).tiles(for: layoutParticipants(3))
        for tile in tiles { #expect(abs(tile.rect.size.widthOverHeight - expected) < 0.03, "\(tile)") }
    }

    @Test("AUTO takes the most common video aspect ratio")
    func autoAspect() {
        var participants = layoutParticipants(3)
        participants[0].videoSize = LayoutSize(width: 480, height: 640)
        participants[1].videoSize = LayoutSize(width: 720, height: 960)
        participants[2].videoSize = LayoutSize(width: 1280, height: 720)
        let tiles = gridLayout(GridLayoutConfiguration(videoAspectRatio: .auto)).tiles(for: participants)
        for tile in tiles { #expect(abs(tile.rect.size.widthOverHeight - 0.75) < 0.03, "\(tile)") }
        let unknown = gridLayout(GridLayoutConfiguration(videoAspectRatio: .auto)).tiles(for: layoutParticipants(2))
        for tile in unknown { #expect(abs(tile.rect.size.widthOverHeight - 16.0 / 9.0) < 0.03, "\(tile)") }
    }

    @Test("The featured participant takes the large slot, CONTAIN by default; the others COVER in a side strip")
    func featured() {
        let participants = layoutParticipants(4) { $0 == 3 ? ["star": "true"] : ["star": "false"] }
        let tiles = gridLayout(GridLayoutConfiguration(featuredParticipantAttribute: "star")).tiles(for: participants)
        #expect(tiles.map(\.participantId) == ["p3", "p1", "p2", "p4"])
        let featured = tiles[0]
        #expect(featured.role == .featured && featured.fillMode == .contain)
        // Strip tiles are a quarter of the height less the gaps ((720 − 3 × 2) / 4 → 178) at 16:9.
        #expect(featured.rect == LayoutRect(x: 0, y: 0, width: 960, height: 720))
        for tile in tiles.dropFirst() {
            #expect(tile.role == .grid && tile.fillMode == .cover)
            #expect(tile.rect.x >= featured.rect.maxX + 2)
            #expect(tile.rect.width == 318 && tile.rect.height == 178, "\(tile)")
            #expect(tile.rect.isEvenAligned)
        }
    }

    @Test("Featured with up to 11 others keeps a wide featured slot", arguments: 1...11)
    func featuredMany(others: Int) {
        let participants = layoutParticipants(others + 1) { $0 == 1 ? ["star": "true"] : [:] }
        let tiles = gridLayout(GridLayoutConfiguration(featuredParticipantAttribute: "star")).tiles(for: participants)
        #expect(tiles.count == others + 1)
        #expect(tiles[0].rect.width >= 638)
        for (index, tile) in tiles.enumerated() {
            #expect(tile.rect.isEvenAligned && LayoutRect(x: 0, y: 0, width: 1280, height: 720).contains(tile.rect))
            for other in tiles[(index + 1)...] { #expect(!tile.rect.intersects(other.rect), "\(tile) \(other)") }
        }
    }

    @Test("A featured participant alone fills the canvas; an explicit fill mode applies to it too")
    func featuredAlone() {
        let participants = layoutParticipants(1) { _ in ["star": "true"] }
        let tiles = gridLayout(GridLayoutConfiguration(featuredParticipantAttribute: "star", videoFillMode: .fill))
            .tiles(for: participants)
        #expect(tiles == [Tile(participantId: "p1", userId: "user1", rect: LayoutRect(x: 0, y: 0, width: 1280, height: 720),
                               fillMode: .fill, zOrder: 0, role: .featured, hasVideo: true)])
    }

    @Test("Only the attribute value \"true\" features a participant")
    func featuredNeedsTrue() {
        let participants = layoutParticipants(2) { _ in ["star": "yes"] }
        let tiles = gridLayout(GridLayoutConfiguration(featuredParticipantAttribute: "star")).tiles(for: participants)
        #expect(tiles.allSatisfy { $0.role == .grid })
    }

    @Test("omitStoppedVideo drops participants without video; otherwise they keep a tile")
    func omitStoppedVideo() {
        var participants = layoutParticipants(3)
        participants[1].hasVideo = false
        #expect(gridLayout(GridLayoutConfiguration(omitStoppedVideo: true)).tiles(for: participants).map(\.participantId)
            == ["p1", "p3"])
        let kept = gridLayout().tiles(for: participants)
        #expect(kept.map(\.participantId) == ["p1", "p2", "p3"])
        #expect(kept.map(\.hasVideo) == [true, false, true])
    }

    @Test("An odd canvas still gets even tiles")
    func oddCanvas() {
        let tiles = gridLayout(canvas: LayoutSize(width: 855, height: 479)).tiles(for: layoutParticipants(5))
        for tile in tiles {
            #expect(tile.rect.isEvenAligned && tile.rect.maxX <= 855 && tile.rect.maxY <= 479, "\(tile)")
        }
    }
}
