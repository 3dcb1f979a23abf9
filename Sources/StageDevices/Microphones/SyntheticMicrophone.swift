public import StageMedia
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A microphone that plays a steady sine tone, the same on every channel, with continuous phase
/// across frames (no click at frame edges).
public struct SyntheticMicrophone: AudioSource {
    public let frequency: Double
    public let channels: Int
    /// Peak level relative to full scale (−12 dBFS: a peak of 8231).
    public let levelDBFS: Double

    private let amplitude: Double
    /// Phase advance per sample, in cycles.
    private let step: Double
    /// Phase of the next sample, in cycles, kept in [0, 1).
    private var phase = 0.0

    /// - Parameters:
    ///   - frequency: Hz, above 0 and below the 24 kHz Nyquist limit.
    ///   - channels: 1 or 2.
    ///   - levelDBFS: peak level, at most 0.
    public init(frequency: Double = 440, channels: Int = 1, levelDBFS: Double = -12) throws(MediaDeviceError) {
        guard frequency > 0, frequency < Double(AudioFrame.sampleRate / 2), levelDBFS <= 0 else {
            throw .invalidTone(frequency: frequency, levelDBFS: levelDBFS)
        }
        guard channels == 1 || channels == 2 else { throw .invalidChannelCount(channels) }
        self.frequency = frequency
        self.channels = channels
        self.levelDBFS = levelDBFS
        amplitude = 32767 * pow(10, levelDBFS / 20)
        step = frequency / Double(AudioFrame.sampleRate)
    }

    /// The next 20 ms of tone: never `nil`.
    public mutating func nextFrame(captureTimeMicros: UInt64) -> AudioFrame? {
        var samples = [Int16](repeating: 0, count: AudioCapture.samplesPerChannel * channels)
        for index in 0..<AudioCapture.samplesPerChannel {
            let value = Int16((amplitude * sin(2 * Double.pi * phase)).rounded())
            for channel in 0..<channels { samples[index * channels + channel] = value }
            phase += step
            if phase >= 1 { phase -= 1 }
        }
        return AudioFrame(channels: channels, samples: samples, captureTimeMicros: captureTimeMicros)
    }
}
