import Foundation
@testable import StageMedia

/// Deterministic synthetic media for the codec tests.
enum CodecTestMedia {
    /// A smooth moving picture: drifting sine waves in luma and chroma plus a bright square
    /// moving 4 px per frame. With `texture`, a fixed pseudo-random texture scrolls 3 px per
    /// frame on top, which costs the encoder many bits (to saturate rate control).
    static func movingFrame(width: Int, height: Int, index t: Int, texture: Bool = false) -> VideoFrame {
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        var y = [UInt8](repeating: 0, count: width * height)
        var u = [UInt8](repeating: 0, count: cw * ch)
        var v = [UInt8](repeating: 0, count: cw * ch)
        let side = max(1, min(width, height) / 6)
        let squareX = (t * 4) % max(1, width - side), squareY = (t * 2) % max(1, height - side)
        for row in 0..<height {
            for col in 0..<width {
                var value = 128 + 60 * sin(Double(col + 3 * t) / 20) * cos(Double(row + t) / 15)
                if texture { value += Double(Int(hash(col + 3 * t, row) % 97) - 48) }
                if (squareX..<squareX + side).contains(col) && (squareY..<squareY + side).contains(row) { value = 230 }
                y[row * width + col] = UInt8(max(16, min(235, value)))
            }
        }
        for row in 0..<ch {
            for col in 0..<cw {
                u[row * cw + col] = UInt8(128 + 40 * sin(Double(col + t) / 25))
                v[row * cw + col] = UInt8(128 + 40 * cos(Double(row - t) / 30))
            }
        }
        return VideoFrame(width: width, height: height, y: y, u: u, v: v, captureTimeMicros: UInt64(t) * 33_333)
    }

    static func hash(_ x: Int, _ y: Int) -> UInt64 {
        var h = UInt64(bitPattern: Int64(x &* 73_856_093 ^ y &* 19_349_663))
        h ^= h >> 33
        h &*= 0xff51_afd7_ed55_8ccd
        h ^= h >> 33
        return h
    }

    /// `count` samples per channel of a sine tone at `amplitude` (0…1 of full scale),
    /// continuing from sample `offset` so consecutive frames join without a click.
    static func tone(frequency: Double, amplitude: Double, channels: Int = 1,
                     offset: Int, count: Int = 960) -> AudioFrame {
        var samples: [Int16] = []
        samples.reserveCapacity(count * channels)
        for n in offset..<offset + count {
            let value = Int16(amplitude * 32767 * sin(2 * Double.pi * frequency * Double(n) / 48_000))
            for _ in 0..<channels { samples.append(value) }
        }
        return AudioFrame(channels: channels, samples: samples)
    }

    static func rms(_ samples: [Int16]) -> Double {
        let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        return (sum / Double(max(1, samples.count))).squareRoot()
    }
}
