import Testing
@testable import StageMedia

@Suite("VP8 encoder → decoder round trips (libvpx)")
struct CodecVP8Tests {
    @Test("640×360 moving pattern at 1 Mbps decodes at ≥ 30 dB PSNR")
    func roundTripQuality() throws {
        let encoder = try VP8Encoder(VP8EncoderConfiguration(
            width: 640, height: 360, bitrateBps: 1_000_000, frameDroppingEnabled: false))
        let decoder = try VP8Decoder()
        var lumaPSNRs: [Double] = []
        var yuvPSNRs: [Double] = []
        for index in 0..<30 {
            let source = CodecTestMedia.movingFrame(width: 640, height: 360, index: index)
            for encoded in try encoder.encode(source) {
                let decoded = try #require(try decoder.decode(encoded))
                #expect(decoded.width == 640 && decoded.height == 360)
                #expect(decoded.captureTimeMicros == source.captureTimeMicros)
                lumaPSNRs.append(PSNR.luma(source, decoded))
                yuvPSNRs.append(PSNR.yuv(source, decoded))
            }
        }
        #expect(lumaPSNRs.count == 30)
        let meanLuma = lumaPSNRs.reduce(0, +) / Double(lumaPSNRs.count)
        let meanYUV = yuvPSNRs.reduce(0, +) / Double(yuvPSNRs.count)
        #expect(meanLuma >= 30, "mean luma PSNR \(meanLuma)")
        #expect(meanYUV >= 30, "mean YUV PSNR \(meanYUV)")
        #expect(lumaPSNRs.min()! >= 27, "worst frame \(lumaPSNRs.min()!)")
    }

    @Test("the first frame is a keyframe, later ones are not unless requested")
    func keyframeFirstAndOnRequest() throws {
        let encoder = try VP8Encoder(VP8EncoderConfiguration(
            width: 320, height: 180, bitrateBps: 300_000, frameDroppingEnabled: false))
        var flags: [Bool] = []
        for index in 0..<12 {
            let frame = CodecTestMedia.movingFrame(width: 320, height: 180, index: index)
            let out = try encoder.encode(frame, forceKeyframe: index == 8)
            #expect(out.count == 1)
            flags += out.map(\.isKeyframe)
        }
        #expect(flags == [true] + Array(repeating: false, count: 7) + [true] + Array(repeating: false, count: 3))
    }

    @Test("keyframeIntervalFrames bounds the distance between keyframes")
    func keyframeInterval() throws {
        let encoder = try VP8Encoder(VP8EncoderConfiguration(
            width: 160, height: 90, bitrateBps: 200_000, keyframeIntervalFrames: 5, frameDroppingEnabled: false))
        var keyIndices: [Int] = []
        for index in 0..<21 {
            let out = try encoder.encode(CodecTestMedia.movingFrame(width: 160, height: 90, index: index))
            if out.contains(where: \.isKeyframe) { keyIndices.append(index) }
        }
        let gaps = zip(keyIndices.dropFirst(), keyIndices).map { $0 - $1 }
        #expect(keyIndices.first == 0)
        #expect(keyIndices.count >= 4, "keyframes at \(keyIndices)")
        #expect(gaps.allSatisfy { $0 <= 5 }, "keyframes at \(keyIndices)")
    }

    @Test("cutting the bitrate 4× shrinks the encoded frames")
    func bitrateChangeTakesEffect() throws {
        let encoder = try VP8Encoder(VP8EncoderConfiguration(
            width: 320, height: 180, bitrateBps: 800_000, frameDroppingEnabled: false))
        func averageBytes(_ range: Range<Int>) throws -> Double {
            var sizes: [Int] = []
            for index in range {
                let frame = CodecTestMedia.movingFrame(width: 320, height: 180, index: index, texture: true)
                sizes += try encoder.encode(frame).map(\.data.count)
            }
            // Skip the first third: rate control needs a few frames to settle.
            let settled = sizes.dropFirst(sizes.count / 3)
            return Double(settled.reduce(0, +)) / Double(settled.count)
        }
        let high = try averageBytes(0..<45)
        try encoder.setBitrate(200_000)
        #expect(encoder.configuration.bitrateBps == 200_000)
        let low = try averageBytes(45..<90)
        #expect(low < high * 0.5, "average \(high) B/frame at 800 kbps, \(low) B/frame at 200 kbps")
        // CBR should land near the target: 800 kbps at 30 fps is ~3333 B/frame.
        #expect(high > 3333 * 0.6 && high < 3333 * 1.4, "average \(high) B/frame at 800 kbps")
    }

    @Test("odd and tiny sizes round-trip with the right plane sizes", arguments: [(321, 181), (33, 17), (2, 2), (1, 1)])
    func oddSizes(size: (Int, Int)) throws {
        let (width, height) = size
        let encoder = try VP8Encoder(VP8EncoderConfiguration(
            width: width, height: height, bitrateBps: 1_000_000, frameDroppingEnabled: false))
        let decoder = try VP8Decoder()
        for index in 0..<3 {
            let source = CodecTestMedia.movingFrame(width: width, height: height, index: index)
            for encoded in try encoder.encode(source) {
                #expect(encoded.width == width && encoded.height == height)
                let decoded = try #require(try decoder.decode(encoded.data))
                #expect(decoded.width == width && decoded.height == height)
                #expect(decoded.u.count == ((width + 1) / 2) * ((height + 1) / 2))
                #expect(PSNR.yuv(source, decoded) >= 30)
            }
        }
    }

    @Test("a frame of another size is rejected with a clear error")
    func sizeMismatch() throws {
        let encoder = try VP8Encoder(VP8EncoderConfiguration(width: 320, height: 180, bitrateBps: 300_000))
        let error = #expect(throws: MediaCodecError.self) {
            try encoder.encode(VideoFrame(width: 320, height: 240))
        }
        #expect(error == .frameSizeMismatch(expectedWidth: 320, expectedHeight: 180, width: 320, height: 240))
        #expect(error?.description.contains("320×240") == true)
    }

    @Test("invalid configurations are rejected before libvpx sees them")
    func invalidConfiguration() {
        let bad = [
            VP8EncoderConfiguration(width: 0, height: 180, bitrateBps: 300_000),
            VP8EncoderConfiguration(width: 20_000, height: 180, bitrateBps: 300_000),
            VP8EncoderConfiguration(width: 320, height: 180, bitrateBps: 10),
            VP8EncoderConfiguration(width: 320, height: 180, bitrateBps: 300_000, framerate: 0),
            VP8EncoderConfiguration(width: 320, height: 180, bitrateBps: 300_000, cpuUsed: -40),
        ]
        for configuration in bad {
            #expect(throws: MediaCodecError.self) { try VP8Encoder(configuration) }
        }
    }
}
