import StageMedia
import Testing
@testable import StageCanvas
import StageLayout

/// BT.601 video-range red (RGB 255, 0, 0).
let videoRed = CanvasColor(y: 81, u: 90, v: 240)

func solidFrame(width: Int, height: Int, color: CanvasColor) -> VideoFrame {
    let chroma = ((width + 1) / 2) * ((height + 1) / 2)
    return VideoFrame(width: width, height: height, y: [UInt8](repeating: color.y, count: width * height),
                      u: [UInt8](repeating: color.u, count: chroma), v: [UInt8](repeating: color.v, count: chroma))
}

/// A frame whose left half is `left` and right half `right` (even width).
func splitFrame(width: Int, height: Int, left: CanvasColor, right: CanvasColor) -> VideoFrame {
    var frame = solidFrame(width: width, height: height, color: left)
    for row in 0..<height { for column in (width / 2)..<width { frame.y[row * width + column] = right.y } }
    let chromaWidth = width / 2
    for row in 0..<(height / 2) {
        for column in (chromaWidth / 2)..<chromaWidth {
            frame.u[row * chromaWidth + column] = right.u
            frame.v[row * chromaWidth + column] = right.v
        }
    }
    return frame
}

func isClose(_ a: CanvasColor, _ b: CanvasColor, tolerance: Int = 2) -> Bool {
    abs(Int(a.y) - Int(b.y)) <= tolerance && abs(Int(a.u) - Int(b.u)) <= tolerance && abs(Int(a.v) - Int(b.v)) <= tolerance
}

@Suite("Canvas")
struct CanvasTests {
    @Test("Colours: BT.601 video range")
    func colours() {
        #expect(CanvasColor(red: 255, green: 0, blue: 0) == videoRed)
        #expect(CanvasColor(red: 0, green: 0, blue: 0) == CanvasColor(y: 16, u: 128, v: 128))
        #expect(CanvasColor(red: 255, green: 255, blue: 255) == CanvasColor(y: 235, u: 128, v: 128))
        #expect(CanvasColor.background == CanvasColor(y: 43, u: 128, v: 128))
        #expect(CanvasColor.placeholder(for: "p1") == CanvasColor.placeholder(for: "p1"))
        #expect(CanvasColor.placeholder(for: "p1") != CanvasColor.placeholder(for: "p2"))
    }

    @Test("A new canvas is the background everywhere")
    func background() {
        let canvas = Canvas(width: 64, height: 36)
        for (x, y) in [(0, 0), (63, 35), (31, 17)] { #expect(canvas.sample(x: x, y: y) == .background) }
    }

    @Test("FILL: a red frame fills its tile exactly; outside stays background")
    func fill() {
        var canvas = Canvas(width: 1280, height: 720)
        let tile = LayoutRect(x: 100, y: 50, width: 640, height: 360)
        canvas.draw(solidFrame(width: 320, height: 240, color: videoRed), in: tile, fillMode: .fill)
        for (x, y) in [(100, 50), (739, 409), (420, 230), (101, 408)] {
            #expect(isClose(canvas.sample(x: x, y: y), videoRed), "inside \(x),\(y): \(canvas.sample(x: x, y: y))")
        }
        for (x, y) in [(99, 50), (740, 409), (420, 49), (420, 410), (0, 0), (1279, 719)] {
            #expect(canvas.sample(x: x, y: y) == .background, "outside \(x),\(y)")
        }
    }

    @Test("CONTAIN: a 4:3 frame in a 16:9 tile is pillarboxed with the background")
    func contain() {
        var canvas = Canvas(width: 1280, height: 720)
        let tile = LayoutRect(x: 0, y: 0, width: 640, height: 360)
        canvas.fill(tile, with: .white)  // the bars must be repainted, not left over
        canvas.draw(solidFrame(width: 640, height: 480, color: videoRed), in: tile, fillMode: .contain)
        // 4:3 at height 360 is 480 wide, centred: x 80..<560.
        #expect(isClose(canvas.sample(x: 80, y: 0), videoRed))
        #expect(isClose(canvas.sample(x: 559, y: 359), videoRed))
        #expect(canvas.sample(x: 79, y: 180) == .background)
        #expect(canvas.sample(x: 560, y: 180) == .background)
        #expect(canvas.sample(x: 0, y: 0) == .background)
    }

    @Test("CONTAIN: a wide frame in a square tile is letterboxed")
    func letterbox() {
        var canvas = Canvas(width: 400, height: 400)
        canvas.draw(solidFrame(width: 160, height: 90, color: videoRed), in: canvas.bounds, fillMode: .contain)
        // 16:9 at width 400 is 224 high (even), centred: y 88..<312.
        #expect(canvas.sample(x: 200, y: 87) == .background)
        #expect(isClose(canvas.sample(x: 200, y: 88), videoRed))
        #expect(isClose(canvas.sample(x: 200, y: 311), videoRed))
        #expect(canvas.sample(x: 200, y: 312) == .background)
    }

    @Test("COVER: the source's centre is kept, its sides cropped")
    func cover() {
        // 400×100 source: left quarter green, middle half red, right quarter green. Cropped to a
        // square tile only the middle 100×100 — all red — remains.
        let green = CanvasColor(red: 0, green: 255, blue: 0)
        var source = solidFrame(width: 400, height: 100, color: green)
        for row in 0..<100 { for column in 100..<300 { source.y[row * 400 + column] = videoRed.y } }
        for row in 0..<50 {
            for column in 50..<150 {
                source.u[row * 200 + column] = videoRed.u
                source.v[row * 200 + column] = videoRed.v
            }
        }
        var canvas = Canvas(width: 200, height: 200)
        canvas.draw(source, in: canvas.bounds, fillMode: .cover)
        for (x, y) in [(0, 0), (199, 199), (0, 199), (100, 100)] {
            #expect(isClose(canvas.sample(x: x, y: y), videoRed), "\(x),\(y): \(canvas.sample(x: x, y: y))")
        }
        // FILL of the same source squeezes the green sides in.
        canvas.draw(source, in: canvas.bounds, fillMode: .fill)
        #expect(isClose(canvas.sample(x: 2, y: 100), green))
    }

    @Test("COVER placement geometry", arguments: [
        (LayoutSize(width: 1280, height: 720), LayoutRect(x: 0, y: 0, width: 300, height: 300),
         LayoutRect(x: 280, y: 0, width: 720, height: 720)),
        (LayoutSize(width: 480, height: 640), LayoutRect(x: 0, y: 0, width: 640, height: 360),
         LayoutRect(x: 0, y: 184, width: 480, height: 270)),
        (LayoutSize(width: 640, height: 360), LayoutRect(x: 0, y: 0, width: 320, height: 180),
         LayoutRect(x: 0, y: 0, width: 640, height: 360)),
        // Within 2 % of the tile (the default gap's 638×358): cropped, not rescaled.
        (LayoutSize(width: 640, height: 360), LayoutRect(x: 642, y: 362, width: 638, height: 358),
         LayoutRect(x: 0, y: 0, width: 638, height: 358)),
        (LayoutSize(width: 1280, height: 720), LayoutRect(x: 0, y: 0, width: 1270, height: 710),
         LayoutRect(x: 4, y: 4, width: 1270, height: 710)),
    ])
    func coverGeometry(source: LayoutSize, tile: LayoutRect, crop: LayoutRect) {
        let placement = CanvasFit.placement(source: source, tile: tile, mode: .cover)
        #expect(placement.crop == crop)
        #expect(placement.destination == tile)
    }

    @Test("A split frame keeps its halves in place (no mirroring, chroma aligned)")
    func orientation() {
        let blue = CanvasColor(red: 0, green: 0, blue: 255)
        var canvas = Canvas(width: 320, height: 180)
        canvas.draw(splitFrame(width: 64, height: 36, left: videoRed, right: blue), in: canvas.bounds, fillMode: .fill)
        #expect(isClose(canvas.sample(x: 10, y: 90), videoRed))
        #expect(isClose(canvas.sample(x: 310, y: 90), blue))
    }

    @Test("Tiles outside the canvas are clipped, not crashing")
    func clipping() {
        var canvas = Canvas(width: 100, height: 100)
        canvas.draw(solidFrame(width: 32, height: 32, color: videoRed), in: LayoutRect(x: 60, y: 60, width: 80, height: 80),
                    fillMode: .fill)
        #expect(isClose(canvas.sample(x: 99, y: 99), videoRed))
        #expect(canvas.sample(x: 59, y: 59) == .background)
        canvas.draw(solidFrame(width: 32, height: 32, color: videoRed), in: LayoutRect(x: 200, y: 0, width: 10, height: 10),
                    fillMode: .cover)
    }

    @Test("makeVideoFrame and withPlanes expose the same pixels")
    func planes() {
        var canvas = Canvas(width: 64, height: 36)
        canvas.fill(LayoutRect(x: 0, y: 0, width: 32, height: 36), with: videoRed)
        let frame = canvas.makeVideoFrame(captureTimeMicros: 7)
        #expect(frame.width == 64 && frame.height == 36 && frame.captureTimeMicros == 7)
        #expect(frame.y[0] == videoRed.y && frame.u[0] == videoRed.u && frame.v[0] == videoRed.v)
        #expect(frame.y[63] == CanvasColor.background.y)
        canvas.withPlanes { planes in
            #expect(planes.yStride == 64 && planes.uStride == 32 && planes.vStride == 32)
            #expect(planes.width == 64 && planes.height == 36)
            #expect(planes.y[0] == videoRed.y && planes.u[0] == videoRed.u && planes.v[31] == CanvasColor.background.v)
        }
    }

    @Test("downscaled(to:) halves the canvas, keeping what is where")
    func downscale() {
        var canvas = Canvas(width: 1280, height: 720)
        canvas.fill(LayoutRect(x: 640, y: 0, width: 640, height: 720), with: videoRed)
        let half = canvas.downscaled(to: LayoutSize(width: 640, height: 360))
        #expect(half.width == 640 && half.height == 360)
        #expect(half.sample(x: 100, y: 100) == .background)
        #expect(isClose(half.sample(x: 500, y: 100), videoRed, tolerance: 0))
    }
}
