import Foundation
import Testing
@testable import StageMedia

@Suite("Opus encoder → decoder (libopus)")
struct CodecOpusTests {
    /// Encodes `frames` 20 ms frames of a 440 Hz tone and decodes them back.
    static func roundTrip(channels: Int, frames: Int = 50, amplitude: Double = 0.5)
        throws -> (source: [Int16], decoded: [Int16], packets: [[UInt8]])
    {
        let encoder = try OpusEncoder(channels: channels)
        let decoder = try OpusDecoder(channels: channels)
        var source: [Int16] = [], decoded: [Int16] = [], packets: [[UInt8]] = []
        for index in 0..<frames {
            let frame = CodecTestMedia.tone(frequency: 440, amplitude: amplitude, channels: channels, offset: index * 960)
            let packet = try encoder.encode(frame)
            let out = try decoder.decode(packet)
            #expect(out.samplesPerChannel == 960 && out.channels == channels)
            source += frame.samples
            decoded += out.samples
            packets.append(packet)
        }
        return (source, decoded, packets)
    }

    @Test("a 440 Hz tone keeps its level and pitch (mono and stereo)", arguments: [1, 2])
    func toneRoundTrip(channels: Int) throws {
        let (source, decoded, packets) = try Self.roundTrip(channels: channels)
        // Skip 100 ms of decoder warm-up (encoder lookahead and the first frames' ramp).
        let warmUp = 5 * 960 * channels
        let sourceDB = 20 * log10(CodecTestMedia.rms(Array(source[warmUp...])))
        let decodedDB = 20 * log10(CodecTestMedia.rms(Array(decoded[warmUp...])))
        #expect(abs(sourceDB - decodedDB) <= 1.5, "source \(sourceDB) dB, decoded \(decodedDB) dB")

        // Pitch: count rising zero crossings of the first channel over the 0.9 s after warm-up.
        let firstChannel = stride(from: warmUp, to: decoded.count, by: channels).map { decoded[$0] }
        let rising = zip(firstChannel, firstChannel.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        #expect(abs(rising - 396) <= 8, "\(rising) cycles in 0.9 s")

        // About 32 kbps per channel: 80 bytes per 20 ms, give or take.
        let average = Double(packets.map(\.count).reduce(0, +)) / Double(packets.count)
        #expect(average > 40 * Double(channels) && average < 160 * Double(channels), "\(average) B/packet")
    }

    @Test("frames must be exactly 960 samples per channel", arguments: [0, 480, 959, 961, 1920])
    func sampleCountEnforced(samples: Int) throws {
        let encoder = try OpusEncoder()
        let frame = AudioFrame(channels: 1, samples: [Int16](repeating: 0, count: samples))
        let error = #expect(throws: MediaCodecError.self) { try encoder.encode(frame) }
        #expect(error == .wrongSampleCount(expected: 960, got: samples))
    }

    @Test("a frame with the wrong channel count is rejected")
    func channelsEnforced() throws {
        let encoder = try OpusEncoder(channels: 1)
        let stereo = CodecTestMedia.tone(frequency: 440, amplitude: 0.5, channels: 2, offset: 0)
        let error = #expect(throws: MediaCodecError.self) { try encoder.encode(stereo) }
        #expect(error == .channelMismatch(expected: 1, got: 2))
        #expect(throws: MediaCodecError.self) { try OpusEncoder(channels: 3) }
        #expect(throws: MediaCodecError.self) { try OpusDecoder(channels: 0) }
    }

    @Test("a lost packet is rebuilt from the next packet's FEC, or concealed, as 20 ms of audio")
    func lossRecovery() throws {
        let (_, _, packets) = try Self.roundTrip(channels: 1, frames: 12)
        let decoder = try OpusDecoder()
        let beforeAny = try decoder.decodeMissing(fecFrom: nil)
        #expect(beforeAny.samplesPerChannel == 960)

        for packet in packets[0..<8] { _ = try decoder.decode(packet) }
        let recovered = try decoder.decodeMissing(fecFrom: packets[9])  // packet 8 lost
        #expect(recovered.samplesPerChannel == 960)
        #expect(AudioLevels.measure(recovered).rms > -30, "FEC output is not silence")
        #expect(try decoder.decode(packets[9]).samplesPerChannel == 960)

        let concealed = try decoder.decodeMissing(fecFrom: nil)  // packet 10 lost, no FEC
        #expect(concealed.samplesPerChannel == 960)
        #expect(try decoder.decode(packets[11]).samplesPerChannel == 960)
    }

    @Test("malformed packets throw OPUS_INVALID_PACKET; empty ones are rejected", arguments: [
        [0x03],        // code 3 without its frame-count byte (RFC 6716 §3.2.5)
        [0x03, 0x00],  // code 3 with zero frames
        [0x02],        // code 2 without the first frame's length
        [0x03, 0x3F] + [UInt8](repeating: 0, count: 10),  // 63 frames × 10 ms > 120 ms
    ] as [[UInt8]])
    func malformedPackets(packet: [UInt8]) throws {
        let decoder = try OpusDecoder()
        let error = #expect(throws: MediaCodecError.self) { try decoder.decode(packet) }
        #expect(error?.description.contains("libopus") == true)
        #expect(throws: MediaCodecError.emptyPacket) { try decoder.decode([]) }
        // Still usable afterwards.
        let (_, _, packets) = try Self.roundTrip(channels: 1, frames: 1)
        #expect(try decoder.decode(packets[0]).samplesPerChannel == 960)
    }

    @Test("setBitrate changes the packet size")
    func bitrateChange() throws {
        let encoder = try OpusEncoder(channels: 1, bitrateBps: 64_000)
        #expect(encoder.bitrateBps == 64_000)
        func averageBytes(_ range: Range<Int>) throws -> Double {
            let sizes = try range.map {
                try encoder.encode(CodecTestMedia.tone(frequency: 440, amplitude: 0.5, offset: $0 * 960)).count
            }
            return Double(sizes.dropFirst(5).reduce(0, +)) / Double(sizes.count - 5)
        }
        let high = try averageBytes(0..<25)
        try encoder.setBitrate(12_000)
        let low = try averageBytes(25..<50)
        #expect(low < high * 0.5, "\(high) B at 64 kbps, \(low) B at 12 kbps")
        #expect(throws: MediaCodecError.self) { try encoder.setBitrate(100) }
        #expect(encoder.lookaheadSamples > 0)
    }
}
