import Testing
@testable import StageMedia

@Suite("VP8 simulcast")
struct CodecSimulcastTests {
    @Test("defaults follow WebRTC's table: 3 layers for 720p, 2 for 360p, 1 for 180p")
    func defaultLayers() {
        let hd = SimulcastLayer.defaults(for: 1280, height: 720)
        #expect(hd.map(\.rid) == ["q", "h", "f"])
        #expect(hd.map(\.scaleDownBy) == [4, 2, 1])
        #expect(hd.map(\.maxBitrateBps) == [150_000, 500_000, 1_700_000])
        #expect(hd.map { $0.size(sourceWidth: 1280, sourceHeight: 720).width } == [320, 640, 1280])

        #expect(SimulcastLayer.defaults(for: 640, height: 360).map(\.rid) == ["h", "f"])
        #expect(SimulcastLayer.defaults(for: 320, height: 180).map(\.rid) == ["f"])
        #expect(SimulcastLayer.defaults(for: 160, height: 90).map(\.rid) == ["f"])
    }

    @Test("allocation fills the lowest layer first and pauses top layers", arguments: [
        (10_000, [37_500, 0, 0]),
        (100_000, [100_000, 0, 0]),
        (400_000, [150_000, 250_000, 0]),
        (1_000_000, [150_000, 500_000, 0]),  // 350 kbps left is under f's 425 kbps minimum
        (1_500_000, [150_000, 500_000, 850_000]),
        (5_000_000, [150_000, 500_000, 1_700_000]),
    ])
    func allocation(total: Int, expected: [Int]) {
        let layers = SimulcastLayer.defaults(for: 1280, height: 720)
        #expect(SimulcastEncoder.allocate(total, over: layers) == expected)
        // The order of `layers` does not change who gets what.
        #expect(SimulcastEncoder.allocate(total, over: layers.reversed()) == expected.reversed())
    }

    @Test("a paused layer needs 1.2 × its minimum to start again; a running one keeps going down to its minimum")
    func restartHysteresis() {
        let layers = SimulcastLayer.defaults(for: 1280, height: 720)  // h: 125 kbps minimum
        let qAlone = [true, false, false], qAndH = [true, true, false]
        #expect(SimulcastEncoder.allocate(290_000, over: layers, running: qAndH) == [150_000, 140_000, 0])
        #expect(SimulcastEncoder.allocate(290_000, over: layers, running: qAlone) == [150_000, 0, 0], "140 kbps < 150 kbps")
        #expect(SimulcastEncoder.allocate(300_000, over: layers, running: qAlone) == [150_000, 150_000, 0])
        #expect(SimulcastEncoder.allocate(270_000, over: layers, running: qAndH) == [150_000, 0, 0], "under h's minimum")
    }

    @Test("960×540 gives q, h, f at ¼, ½ and full size, keyframes first and on request per rid")
    func threeLayers() throws {
        let encoder = try SimulcastEncoder(width: 960, height: 540, frameDroppingEnabled: false)
        let decoders = try ["q": VP8Decoder(), "h": VP8Decoder(), "f": VP8Decoder()]
        let expectedSizes = ["q": (240, 135), "h": (480, 270), "f": (960, 540)]
        for index in 0..<4 {
            let frame = CodecTestMedia.movingFrame(width: 960, height: 540, index: index)
            let out = try encoder.encode(frame, forceKeyframe: index == 3 ? ["h"] : [])
            #expect(out.map(\.rid) == ["q", "h", "f"])
            for (rid, encoded) in out {
                let expected = try #require(expectedSizes[rid])
                #expect(encoded.width == expected.0 && encoded.height == expected.1)
                #expect(encoded.isKeyframe == (index == 0 || (index == 3 && rid == "h")), "frame \(index) \(rid)")
                let decoded = try #require(try decoders[rid]?.decode(encoded))
                #expect(decoded.width == expected.0 && decoded.height == expected.1)
                let reference = VideoScaler.scale(frame, toWidth: expected.0, height: expected.1)
                #expect(PSNR.luma(reference, decoded) >= 28, "\(rid) frame \(index)")
            }
        }
    }

    @Test("cutting the total bitrate pauses the top layer; restoring it resumes with a keyframe")
    func pauseAndResume() throws {
        let encoder = try SimulcastEncoder(width: 640, height: 360, frameDroppingEnabled: false)  // h (320×180) + f
        #expect(encoder.layers.map(\.rid) == ["h", "f"])
        var index = 0
        func next() throws -> [(rid: String, frame: EncodedVideoFrame)] {
            defer { index += 1 }
            return try encoder.encode(CodecTestMedia.movingFrame(width: 640, height: 360, index: index))
        }
        #expect(try next().map(\.rid) == ["h", "f"])
        try encoder.setTotalBitrate(200_000)
        #expect(encoder.activeRids == ["h"])
        #expect(encoder.layerBitrates == [150_000, 0])
        #expect(try next().map(\.rid) == ["h"])
        try encoder.setTotalBitrate(2_000_000)
        #expect(encoder.activeRids == ["h", "f"])
        let resumed = try next()
        #expect(resumed.map(\.rid) == ["h", "f"])
        #expect(resumed.map(\.frame.isKeyframe) == [false, true])
        #expect(try next().map(\.frame.isKeyframe) == [false, false])
    }

    @Test("dynacast: disabled layers are not encoded, the lowest always is, and a layer enabled again starts with a keyframe")
    func enabledLayers() throws {
        let encoder = try SimulcastEncoder(width: 960, height: 540, frameDroppingEnabled: false)
        var index = 0
        func next() throws -> [(rid: String, frame: EncodedVideoFrame)] {
            defer { index += 1 }
            return try encoder.encode(CodecTestMedia.movingFrame(width: 960, height: 540, index: index))
        }
        #expect(try next().map(\.rid) == ["q", "h", "f"])
        encoder.setEnabled(rids: ["h"])
        #expect(encoder.activeRids == ["q", "h"])
        #expect(try next().map(\.rid) == ["q", "h"])
        encoder.setEnabled(rids: [])
        #expect(try next().map(\.rid) == ["q"], "the lowest layer runs whatever the list says")
        encoder.setEnabled(rids: ["q", "h", "f"])
        let resumed = try next()
        #expect(resumed.map(\.rid) == ["q", "h", "f"])
        #expect(resumed.map(\.frame.isKeyframe) == [false, true, true])
        #expect(try next().map(\.frame.isKeyframe) == [false, false, false])
        encoder.setEnabled(rids: ["q"])
        try encoder.setTotalBitrate(100_000)
        try encoder.setTotalBitrate(5_000_000)
        #expect(try next().map(\.rid) == ["q"], "a bitrate change does not resume a disabled layer")
    }

    @Test("one layer at full size works as plain (non-simulcast) VP8")
    func singleLayer() throws {
        let encoder = try SimulcastEncoder(
            width: 320, height: 180, layers: [SimulcastLayer(rid: "f", scaleDownBy: 1, maxBitrateBps: 400_000)],
            frameDroppingEnabled: false)
        let decoder = try VP8Decoder()
        for index in 0..<3 {
            let frame = CodecTestMedia.movingFrame(width: 320, height: 180, index: index)
            let out = try encoder.encode(frame)
            #expect(out.count == 1)
            let first = try #require(out.first)
            #expect(first.rid == "f")
            let decoded = try #require(try decoder.decode(first.frame))
            #expect(PSNR.yuv(frame, decoded) >= 30)
        }
    }

    @Test("duplicate rids and empty layer lists are rejected")
    func invalidLayers() {
        #expect(throws: MediaCodecError.self) { try SimulcastEncoder(width: 320, height: 180, layers: []) }
        let twice = SimulcastLayer(rid: "f", scaleDownBy: 1, maxBitrateBps: 400_000)
        #expect(throws: MediaCodecError.self) { try SimulcastEncoder(width: 320, height: 180, layers: [twice, twice]) }
    }
}
