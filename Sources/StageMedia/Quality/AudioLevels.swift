import Foundation

/// Peak and RMS level of 16-bit PCM in dBFS, relative to full scale 32768.
///
/// A full-scale square wave reads 0 dBFS peak and 0 dBFS RMS; a full-scale sine reads 0 dBFS peak
/// and −3.01 dBFS RMS (no AES17 +3 dB correction). Levels are clamped to `silenceFloor`
/// (−127 dBFS, the "silence" value of the RFC 6464 audio-level header extension), which is also
/// what digital silence and an empty frame read.
public enum AudioLevels {
    public static let silenceFloor = -127.0

    /// Levels over all samples of all channels.
    public static func measure(_ frame: AudioFrame) -> (peak: Double, rms: Double) {
        guard !frame.samples.isEmpty else { return (silenceFloor, silenceFloor) }
        var peak = 0
        var sumOfSquares = 0.0
        frame.samples.withUnsafeBufferPointer { samples in
            for sample in samples {
                let value = Int(sample)
                peak = max(peak, abs(value))
                sumOfSquares += Double(value * value)
            }
        }
        let rms = (sumOfSquares / Double(frame.samples.count)).squareRoot()
        return (decibels(Double(peak)), decibels(rms))
    }

    /// `20·log10(amplitude / 32768)`, at least `silenceFloor`.
    static func decibels(_ amplitude: Double) -> Double {
        guard amplitude > 0 else { return silenceFloor }
        return max(silenceFloor, 20 * log10(amplitude / 32768))
    }
}
