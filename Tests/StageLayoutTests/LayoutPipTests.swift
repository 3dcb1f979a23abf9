import Testing
@testable import StageLayout

@Suite("PiP layout")
struct LayoutPipTests {
    private func marked(_ count: Int, pip: Int, featured: Int? = nil) -> [LayoutParticipant] {
        layoutParticipants(count) { index in
            var attributes: [String: String] = [:]
            if index == pip { attributes["pip"] = "true" }
            if index == featured { attributes["star"] = "true" }
            return attributes
        }
    }

    @Test("The window sits in its corner, pipOffset from both nearest edges", arguments: [
        (PipPosition.topLeft, LayoutRect(x: 10, y: 10, width: 320, height: 180)),
        (.topRight, LayoutRect(x: 950, y: 10, width: 320, height: 180)),
        (.bottomLeft, LayoutRect(x: 10, y: 530, width: 320, height: 180)),
        (.bottomRight, LayoutRect(x: 950, y: 530, width: 320, height: 180)),
    ])
    func corners(position: PipPosition, expected: LayoutRect) {
        let layout = pipLayout(PipLayoutConfiguration(pipParticipantAttribute: "pip", pipOffset: 10, pipPosition: position))
        let tiles = layout.tiles(for: marked(2, pip: 2))
        #expect(tiles.count == 2)
        #expect(tiles[0] == Tile(participantId: "p1", userId: "user1", rect: LayoutRect(x: 0, y: 0, width: 1280, height: 720),
                                 fillMode: .cover, zOrder: 0, role: .grid, hasVideo: true))
        #expect(tiles[1].participantId == "p2" && tiles[1].role == .pip && tiles[1].zOrder == 1)
        #expect(tiles[1].rect == expected)
    }

    @Test("Defaults: BOTTOM_RIGHT, offset 0, a quarter of the canvas, COVER")
    func defaults() {
        let tiles = pipLayout(PipLayoutConfiguration(pipParticipantAttribute: "pip")).tiles(for: marked(2, pip: 1))
        #expect(tiles.map(\.participantId) == ["p2", "p1"])
        #expect(tiles[1].rect == LayoutRect(x: 960, y: 540, width: 320, height: 180))
        #expect(tiles.allSatisfy { $0.fillMode == .cover })
    }

    @Test("pipWidth and pipHeight; one alone follows the PiP video's aspect ratio")
    func size() {
        let both = pipLayout(PipLayoutConfiguration(pipParticipantAttribute: "pip", pipWidth: 400, pipHeight: 300))
        #expect(both.tiles(for: marked(2, pip: 2))[1].rect == LayoutRect(x: 880, y: 420, width: 400, height: 300))
        var portrait = marked(2, pip: 2)
        portrait[1].videoSize = LayoutSize(width: 480, height: 640)
        let widthOnly = pipLayout(PipLayoutConfiguration(pipParticipantAttribute: "pip", pipWidth: 240))
        #expect(widthOnly.tiles(for: portrait)[1].rect == LayoutRect(x: 1040, y: 400, width: 240, height: 320))
        let heightOnly = pipLayout(PipLayoutConfiguration(pipParticipantAttribute: "pip", pipHeight: 200))
        #expect(heightOnly.tiles(for: portrait)[1].rect.size == LayoutSize(width: 150, height: 200))
        let tooBig = pipLayout(PipLayoutConfiguration(pipParticipantAttribute: "pip", pipWidth: 5000, pipHeight: 5000))
        #expect(tooBig.tiles(for: marked(2, pip: 2))[1].rect == LayoutRect(x: 0, y: 0, width: 1280, height: 720))
    }

    @Test("DYNAMIC: alone, the PiP participant expands to the full canvas; STATIC keeps its window")
    func behaviour() {
        let alone = marked(1, pip: 1)
        let dynamic = pipLayout(PipLayoutConfiguration(pipParticipantAttribute: "pip", pipBehavior: .dynamic))
        #expect(dynamic.tiles(for: alone).map(\.rect) == [LayoutRect(x: 0, y: 0, width: 1280, height: 720)])
        let fixed = pipLayout(PipLayoutConfiguration(pipParticipantAttribute: "pip", pipBehavior: .static))
        #expect(fixed.tiles(for: alone).map(\.rect) == [LayoutRect(x: 960, y: 540, width: 320, height: 180)])
        // With someone else present DYNAMIC is an ordinary window.
        #expect(dynamic.tiles(for: marked(2, pip: 1))[1].rect == LayoutRect(x: 960, y: 540, width: 320, height: 180))
        // Once the other stops video and is omitted, the window expands.
        var stopped = marked(2, pip: 1)
        stopped[1].hasVideo = false
        let omitting = pipLayout(PipLayoutConfiguration(omitStoppedVideo: true, pipParticipantAttribute: "pip",
                                                        pipBehavior: .dynamic))
        #expect(omitting.tiles(for: stopped).map(\.rect) == [LayoutRect(x: 0, y: 0, width: 1280, height: 720)])
    }

    @Test("Without a PiP participant there is no window: everyone shares the canvas")
    func noPipParticipant() {
        let tiles = pipLayout(PipLayoutConfiguration(pipParticipantAttribute: "pip")).tiles(for: layoutParticipants(2))
        #expect(tiles.map(\.rect) == [LayoutRect(x: 0, y: 0, width: 640, height: 720),
                                      LayoutRect(x: 640, y: 0, width: 640, height: 720)])
        #expect(tiles.allSatisfy { $0.role == .grid })
    }

    @Test("Under the window: the featured participant's slot beside the others, the window on top")
    func featuredUnderWindow() {
        let tiles = pipLayout(PipLayoutConfiguration(featuredParticipantAttribute: "star", pipParticipantAttribute: "pip"))
            .tiles(for: marked(3, pip: 1, featured: 3))
        #expect(tiles.map(\.participantId) == ["p3", "p2", "p1"])
        #expect(tiles.map(\.role) == [.featured, .grid, .pip])
        #expect(tiles[0].rect.width > tiles[1].rect.width)
        #expect(tiles.map(\.zOrder) == [0, 0, 1])
    }
}
