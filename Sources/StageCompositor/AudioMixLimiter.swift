import Foundation

/// A look-ahead-free peak limiter for interleaved stereo: the gain drops at once to what the
/// current sample's peak needs to stay under the ceiling (so nothing ever exceeds it), then
/// recovers towards 1 exponentially with the release time constant.
struct AudioMixLimiter {
    /// Linear ceiling (e.g. −1 dBFS ≈ 0.891).
    let ceiling: Float
    /// Per-sample-frame step of the release (1 − e^(−1 / (release × rate))).
    let releaseStep: Float
    private(set) var gain: Float = 1

    init(ceilingDecibels: Double, releaseSeconds: Double, sampleRate: Int) {
        ceiling = Float(pow(10, ceilingDecibels / 20))
        releaseStep = Float(1 - exp(-1 / (max(releaseSeconds, 1e-4) * Double(sampleRate))))
    }

    mutating func process(_ stereo: UnsafeMutableBufferPointer<Float>) {
        var index = 0
        while index + 1 < stereo.count {
            let peak = max(abs(stereo[index]), abs(stereo[index + 1]))
            let needed = peak > ceiling ? ceiling / peak : 1
            gain = needed < gain ? needed : gain + (needed - gain) * releaseStep
            stereo[index] = clamp(stereo[index] * gain)
            stereo[index + 1] = clamp(stereo[index + 1] * gain)
            index += 2
        }
    }

    /// Guards the last ulp of rounding in `ceiling / peak × sample`.
    private func clamp(_ sample: Float) -> Float { min(ceiling, max(-ceiling, sample)) }
}
