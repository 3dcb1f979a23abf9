import Foundation
import Testing
@testable import StageDevices
@testable import StageMedia

@Suite("Synthetic microphone")
struct DeviceSyntheticMicrophoneTests {
    @Test("20 ms frames of a −12 dBFS sine with continuous phase", arguments: [1, 2])
    func tone(channels: Int) throws {
        var microphone = try SyntheticMicrophone(frequency: 440, channels: channels)
        var mono: [Int16] = []
        for index in 0..<50 {
            let next = microphone.nextFrame(captureTimeMicros: UInt64(index) * 20_000)
            let frame = try #require(next)
            #expect(frame.channels == channels && frame.samplesPerChannel == AudioCapture.samplesPerChannel)
            #expect(frame.captureTimeMicros == UInt64(index) * 20_000)
            for sample in 0..<frame.samplesPerChannel {
                let values = frame.samples[(sample * channels)..<((sample + 1) * channels)]
                #expect(Set(values).count == 1)
                mono.append(values.first!)
            }
        }
        // Every sample, across frame boundaries, is the sine at its absolute index.
        let amplitude: Double = 32767 * pow(10, -12.0 / 20)
        var worst = 0.0
        for (index, value) in mono.enumerated() {
            let phase: Double = 2 * Double.pi * 440 * Double(index) / 48_000
            worst = max(worst, abs(Double(value) - amplitude * sin(phase)))
        }
        #expect(worst <= 1.5)
        #expect(mono.max() == 8231 || mono.max() == 8230)
        // 440 Hz: 880 sign changes in one second.
        let crossings = zip(mono, mono.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        #expect(abs(crossings - 880) <= 2)
    }

    @Test("tones and channel counts out of range are refused")
    func invalid() {
        #expect(throws: MediaDeviceError.self) { try SyntheticMicrophone(frequency: 0) }
        #expect(throws: MediaDeviceError.self) { try SyntheticMicrophone(frequency: 30_000) }
        #expect(throws: MediaDeviceError.self) { try SyntheticMicrophone(levelDBFS: 3) }
        #expect(throws: MediaDeviceError.invalidChannelCount(3)) { try SyntheticMicrophone(channels: 3) }
    }
}
