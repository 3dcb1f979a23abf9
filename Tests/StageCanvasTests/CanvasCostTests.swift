import Foundation
import StageMedia
import Testing
@testable import StageCanvas
import StageLayout

@Suite("Canvas cost")
struct CanvasCostTests {
    /// Not a benchmark (that comes later): a quick figure for composing a 2×2 grid of 720p inputs,
    /// printed as µs per output frame, with a generous bound so a pathological slowdown fails.
    @Test("4 × (1280×720 → 640×360) onto 1280×720", arguments: [CanvasScalingFilter.bilinear, .box])
    func fourTiles(filter: CanvasScalingFilter) {
        let inputs = (0..<4).map { index in
            VideoFrame(width: 1280, height: 720,
                       y: (0..<(1280 * 720)).map { UInt8(truncatingIfNeeded: $0 &* (index + 3)) },
                       u: [UInt8](repeating: 90, count: 640 * 360), v: [UInt8](repeating: 200, count: 640 * 360))
        }
        let tiles = CompositionLayout(canvas: LayoutSize(width: 1280, height: 720), configuration: .grid(.init(gridGap: 0)))
            .tiles(for: (1...4).map { LayoutParticipant(participantId: "p\($0)", userId: "user\($0)") })
        var canvas = Canvas(width: 1280, height: 720)
        canvas.scalingFilter = filter
        let frames = 60
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for _ in 0..<frames {
                canvas.clear()
                for (tile, frame) in zip(tiles, inputs) { canvas.draw(tile, frame: frame, label: true) }
            }
        }
        let microseconds = Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12
        let perFrame = microseconds / Double(frames)
        print("Canvas cost (\(filter)): \(Int(perFrame)) µs/frame for 4 × 1280×720 → \(tiles[0].rect.size) tiles + labels, "
              + "= \(String(format: "%.1f", perFrame * 30 / 10_000))% of a core at 30 fps")
        #expect(perFrame < 30_000)
    }
}
