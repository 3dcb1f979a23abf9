@testable import StageLayout

/// Participants "p1"… in join order, users "user1"…, all with video.
func layoutParticipants(_ count: Int, attributes: (Int) -> [String: String] = { _ in [:] }) -> [LayoutParticipant] {
    guard count > 0 else { return [] }
    return (1...count).map {
        LayoutParticipant(participantId: "p\($0)", userId: "user\($0)", attributes: attributes($0))
    }
}

let canvas720p = LayoutSize(width: 1280, height: 720)

func gridLayout(_ configuration: GridLayoutConfiguration = GridLayoutConfiguration(),
                canvas: LayoutSize = canvas720p) -> CompositionLayout {
    CompositionLayout(canvas: canvas, configuration: .grid(configuration))
}

func pipLayout(_ configuration: PipLayoutConfiguration, canvas: LayoutSize = canvas720p) -> CompositionLayout {
    CompositionLayout(canvas: canvas, configuration: .pip(configuration))
}

extension LayoutRect {
    func intersects(_ other: LayoutRect) -> Bool {
        x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY
    }

    func contains(_ other: LayoutRect) -> Bool {
        other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY
    }
}
