import Foundation
import Testing
@testable import StageMedia

@Suite("PSNR")
struct QualityPSNRTests {
    @Test("identical frames have infinite PSNR")
    func identical() {
        let frame = CodecTestMedia.movingFrame(width: 33, height: 17, index: 3)
        #expect(PSNR.luma(frame, frame) == .infinity)
        #expect(PSNR.yuv(frame, frame) == .infinity)
    }

    @Test("a uniform luma error of 10 matches the hand computation")
    func knownDifference() {
        let a = VideoFrame(width: 4, height: 4, luma: 100, chroma: 128)
        let b = VideoFrame(width: 4, height: 4, luma: 110, chroma: 128)
        // Luma: MSE = 10² = 100 → 10·log10(65025 / 100) = 28.1308 dB.
        #expect(abs(PSNR.luma(a, b) - 28.130_803_6) < 1e-6)
        // All planes: 16 luma samples with error 100, 2 × 4 chroma samples with none:
        // MSE = 1600 / 24 → 10·log10(65025 · 24 / 1600) = 29.8917 dB.
        #expect(abs(PSNR.yuv(a, b) - 29.891_716_0) < 1e-6)
        #expect(abs(PSNR.yuv(a, b) - 10 * log10(65025.0 * 24 / 1600)) < 1e-9)
    }

    @Test("a single pixel off by 255 on a 2×2 frame")
    func singlePixel() {
        let a = VideoFrame(width: 2, height: 2, y: [0, 0, 0, 0], u: [128], v: [128])
        let b = VideoFrame(width: 2, height: 2, y: [255, 0, 0, 0], u: [128], v: [128])
        // MSE = 255² / 4 → PSNR = 10·log10(4) = 6.0206 dB.
        #expect(abs(PSNR.luma(a, b) - 10 * log10(4.0)) < 1e-9)
        #expect(abs(PSNR.yuv(a, b) - 10 * log10(6.0)) < 1e-9)
    }
}

@Suite("Audio levels")
struct QualityAudioLevelTests {
    @Test("a full-scale square wave reads 0 dBFS peak and RMS")
    func fullScaleSquare() {
        let samples = (0..<960).map { ($0 / 24) % 2 == 0 ? Int16.max : Int16.min }
        let levels = AudioLevels.measure(AudioFrame(channels: 1, samples: samples))
        #expect(abs(levels.peak) < 0.01)
        #expect(abs(levels.rms) < 0.01)
    }

    @Test("silence and empty frames read the floor")
    func silence() {
        let silent = AudioLevels.measure(AudioFrame(channels: 2, samples: [Int16](repeating: 0, count: 1920)))
        #expect(silent.peak == AudioLevels.silenceFloor && silent.rms == AudioLevels.silenceFloor)
        #expect(AudioLevels.silenceFloor == -127)
        let empty = AudioLevels.measure(AudioFrame(channels: 1, samples: []))
        #expect(empty.peak == -127 && empty.rms == -127)
    }

    @Test("a half-scale sine reads −6 dBFS peak and −9 dBFS RMS")
    func halfScaleSine() {
        let levels = AudioLevels.measure(CodecTestMedia.tone(frequency: 1000, amplitude: 0.5, offset: 0))
        #expect(abs(levels.peak - (-6.02)) < 0.05)
        #expect(abs(levels.rms - (-9.03)) < 0.05)
    }
}

@Suite("Freezes (W3C webrtc-stats freezeCount)")
struct QualityFreezeTests {
    /// Frames every `interval` µs from 0, then the given extra gaps, as absolute times.
    private func shown(_ detector: inout FreezeDetector, every interval: UInt64, count: Int, from start: UInt64 = 0) -> UInt64 {
        var time = start
        for _ in 0..<count {
            detector.frameShown(atMicros: time)
            time += interval
        }
        return time - interval
    }

    @Test("steady frames are no freeze")
    func steady() {
        var detector = FreezeDetector()
        _ = shown(&detector, every: 50_000, count: 200)
        #expect(detector.freezeCount == 0 && detector.totalFreezesMicros == 0)
    }

    @Test("at 20 fps a gap is a freeze from 200 ms (avg + 150 ms), not at 199 ms", arguments: [
        (199_000 as UInt64, 0), (200_000, 1), (450_000, 1),
    ])
    func threshold(gap: UInt64, freezes: Int) {
        var detector = FreezeDetector()
        let last = shown(&detector, every: 50_000, count: 40)
        detector.frameShown(atMicros: last + gap)
        #expect(detector.freezeCount == freezes)
        #expect(detector.totalFreezesMicros == (freezes == 1 ? gap : 0))
        #expect(detector.longFreezeCount == 0)
    }

    @Test("at 5 fps the bar is 3 × 200 ms: 550 ms is no freeze, 600 ms is a long one", arguments: [
        (550_000 as UInt64, 0), (600_000, 1),
    ])
    func lowFrameRate(gap: UInt64, freezes: Int) {
        var detector = FreezeDetector()
        let last = shown(&detector, every: 200_000, count: 40)
        detector.frameShown(atMicros: last + gap)
        #expect(detector.freezeCount == freezes && detector.longFreezeCount == freezes)
        #expect(detector.longestFreezeMicros == (freezes == 1 ? gap : 0))
    }

    @Test("two freezes add up; the average follows the last 30 intervals")
    func accumulates() {
        var detector = FreezeDetector()
        var last = shown(&detector, every: 33_000, count: 31)
        last += 700_000
        detector.frameShown(atMicros: last)
        last = shown(&detector, every: 33_000, count: 31, from: last + 33_000)
        detector.frameShown(atMicros: last + 300_000)
        #expect(detector.freezeCount == 2)
        #expect(detector.totalFreezesMicros == 1_000_000 && abs(detector.totalFreezesDuration - 1.0) < 1e-9)
        #expect(detector.longFreezeCount == 1 && detector.longestFreezeMicros == 700_000)
    }

    @Test("the first frame, a repeated time and a clock going back count nothing")
    func degenerate() {
        var detector = FreezeDetector()
        detector.frameShown(atMicros: 5_000_000)
        detector.frameShown(atMicros: 5_000_000)
        detector.frameShown(atMicros: 1_000)
        detector.frameShown(atMicros: 9_000_000)
        #expect(detector.freezeCount == 0)
    }
}
