import Foundation
import StageMedia
import Testing
@testable import StageCompositor

/// A mono or stereo sine block at `frequency` Hz and `amplitude` (0…1 of full scale).
func sineFrame(frequency: Double, amplitude: Double, samples: Int, channels: Int = 1, startingAt start: Int = 0) -> AudioFrame {
    var values: [Int16] = []
    values.reserveCapacity(samples * channels)
    for index in start..<(start + samples) {
        let value = Int16((sin(2 * .pi * frequency * Double(index) / 48_000) * amplitude * 32767).rounded())
        for _ in 0..<channels { values.append(value) }
    }
    return AudioFrame(channels: channels, samples: values)
}

/// The magnitude of one DFT bin of the left channel, normalised so a sine of amplitude A gives ≈ A.
func leftMagnitude(_ stereo: [Float], frequency: Double) -> Double {
    let count = stereo.count / 2
    var real = 0.0, imaginary = 0.0
    for index in 0..<count {
        let phase = 2 * .pi * frequency * Double(index) / 48_000
        real += Double(stereo[2 * index]) * cos(phase)
        imaginary -= Double(stereo[2 * index]) * sin(phase)
    }
    return 2 * (real * real + imaginary * imaginary).squareRoot() / Double(count)
}

@Suite("Audio mixer")
struct AudioMixerTests {
    @Test("Two sines mixed: both frequencies present, a third absent")
    func twoSines() {
        let mixer = AudioMixer(startMilliseconds: 0)
        // 4800 samples = 100 ms; 1000 Hz and 2500 Hz complete whole cycles, so the bins are clean.
        mixer.push(sineFrame(frequency: 1000, amplitude: 0.25, samples: 4800), from: "a")
        mixer.push(sineFrame(frequency: 2500, amplitude: 0.25, samples: 4800, channels: 2), from: "b")
        let mixed = mixer.mix(samplesPerChannel: 4800)
        #expect(mixed.count == 9600)
        #expect(abs(leftMagnitude(mixed, frequency: 1000) - 0.25) < 0.01)
        #expect(abs(leftMagnitude(mixed, frequency: 2500) - 0.25) < 0.01)
        #expect(leftMagnitude(mixed, frequency: 1700) < 0.01)
        // Mono goes to both channels.
        #expect(mixed[200] == mixed[201])
    }

    @Test("Full-scale sources summed never exceed the −1 dBFS ceiling")
    func limiter() {
        let mixer = AudioMixer(startMilliseconds: 0)
        let ceiling = Float(pow(10, -1.0 / 20))
        for source in ["a", "b", "c"] {
            mixer.push(sineFrame(frequency: 440, amplitude: 1, samples: 9600), from: source)
        }
        var peak: Float = 0
        for _ in 0..<9 {
            for sample in mixer.mix() { peak = max(peak, abs(sample)) }
        }
        #expect(peak <= ceiling)
        #expect(peak > ceiling * 0.95)  // limited, not muted
        #expect(mixer.mixInt16().allSatisfy { abs(Int($0)) <= Int(ceiling * 32767) + 1 })
    }

    @Test("Quiet input passes unchanged (gain 1 below the ceiling)")
    func transparent() {
        let mixer = AudioMixer(startMilliseconds: 0)
        mixer.push(AudioFrame(channels: 1, samples: [16384, -8192]), from: "a")
        #expect(mixer.mix(samplesPerChannel: 2) == [0.5, 0.5, -0.25, -0.25])
    }

    @Test("An underrunning source is filled with silence; the others keep playing")
    func underrun() {
        let mixer = AudioMixer(startMilliseconds: 0)
        mixer.push(AudioFrame(channels: 2, samples: [Int16](repeating: 8192, count: 2 * 100)), from: "short")
        mixer.push(AudioFrame(channels: 2, samples: [Int16](repeating: 4096, count: 2 * 1024)), from: "long")
        let mixed = mixer.mix(samplesPerChannel: 1024)
        #expect(mixed[0] == 0.375 && mixed[199] == 0.375)
        #expect(mixed[200] == 0.125 && mixed[2047] == 0.125)
        #expect(mixer.mix(samplesPerChannel: 1024).allSatisfy { $0 == 0 })
        #expect(AudioMixer().mix().count == 2048)
    }

    @Test("A source waits for its start threshold before playing")
    func priming() {
        let mixer = AudioMixer(startMilliseconds: 40)  // 1920 samples
        mixer.push(AudioFrame(channels: 1, samples: [Int16](repeating: 8192, count: 960)), from: "a")
        #expect(mixer.mix(samplesPerChannel: 480).allSatisfy { $0 == 0 })
        #expect(mixer.bufferedSamplesPerChannel(of: "a") == 960)
        mixer.push(AudioFrame(channels: 1, samples: [Int16](repeating: 8192, count: 960)), from: "a")
        #expect(mixer.mix(samplesPerChannel: 480).allSatisfy { $0 == 0.25 })
    }

    @Test("The FIFO keeps at most ~200 ms: the oldest samples are dropped")
    func bound() {
        let mixer = AudioMixer(maximumBufferedMilliseconds: 200, startMilliseconds: 0)
        for block in 0..<50 {  // 50 × 20 ms = 1 s, values counting up per block
            mixer.push(AudioFrame(channels: 1, samples: [Int16](repeating: Int16(block * 100), count: 960)), from: "a")
            #expect(mixer.bufferedSamplesPerChannel(of: "a") <= 9600)
        }
        #expect(mixer.bufferedSamplesPerChannel(of: "a") == 9600)
        // What is left is the newest 200 ms: blocks 40…49.
        #expect(mixer.mix(samplesPerChannel: 1)[0] == Float(4000) / 32768)
    }

    @Test("removeSource forgets a source; pushes from many threads are safe")
    func threads() async {
        let mixer = AudioMixer(startMilliseconds: 0)
        await withTaskGroup(of: Void.self) { group in
            for source in 0..<8 {
                group.addTask {
                    for _ in 0..<50 { mixer.push(AudioFrame(channels: 1, samples: [Int16](repeating: 1, count: 96)), from: "s\(source)") }
                }
            }
            group.addTask { for _ in 0..<50 { _ = mixer.mix(samplesPerChannel: 64) } }
        }
        #expect(mixer.sourceIds.count == 8)
        mixer.removeSource("s0")
        #expect(mixer.sourceIds.count == 7 && mixer.bufferedSamplesPerChannel(of: "s0") == 0)
    }
}
