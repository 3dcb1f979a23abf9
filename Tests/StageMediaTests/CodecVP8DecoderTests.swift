import Testing
@testable import StageMedia

/// Ways to damage a VP8 keyframe. Byte layout per RFC 6386 §9.1: a 3-byte frame tag
/// (bit 0 = 0 for a keyframe, bits 5–23 = first partition size), then for keyframes the start
/// code 9d 01 2a and two 16-bit little-endian dimensions, then the partitions.
enum Malformation: String, CaseIterable, Sendable {
    case empty
    case oneByte
    case tagOnly
    case headerWithoutPartitions
    case badStartCode
    case zeroWidth
    case firstPartitionSizeTooLarge
    case truncatedInFirstPartition
    case allZeros
    case allOnes
    case randomInterframe

    func apply(to keyframe: [UInt8]) -> [UInt8] {
        switch self {
        case .empty: return []
        case .oneByte: return [0x00]
        case .tagOnly: return Array(keyframe.prefix(3))
        case .headerWithoutPartitions: return Array(keyframe.prefix(10))
        case .badStartCode:
            var bytes = keyframe
            bytes[3] = 0x00; bytes[4] = 0x00; bytes[5] = 0x00
            return bytes
        case .zeroWidth:
            var bytes = keyframe
            bytes[6] = 0x00; bytes[7] = 0x00
            return bytes
        case .firstPartitionSizeTooLarge:
            // Size bits all set: 0x7FFFF bytes, far more than the packet holds.
            var bytes = keyframe
            bytes[0] |= 0xE0; bytes[1] = 0xFF; bytes[2] = 0xFF
            return bytes
        case .truncatedInFirstPartition: return Array(keyframe.prefix(20))
        case .allZeros: return [UInt8](repeating: 0x00, count: 200)
        case .allOnes: return [UInt8](repeating: 0xFF, count: 200)
        case .randomInterframe:
            var bytes = (0..<300).map { UInt8(truncatingIfNeeded: CodecTestMedia.hash($0, 7)) }
            bytes[0] = 0xF1; bytes[1] = 0xFF; bytes[2] = 0xFF  // interframe, huge partition 0
            return bytes
        }
    }
}

@Suite("VP8 decoder robustness (libvpx)")
struct CodecVP8DecoderTests {
    /// A keyframe and two inter frames of a 64×48 stream, plus their source pictures.
    static func stream(frames: Int = 3, keyframeAt: Set<Int> = []) throws -> [(source: VideoFrame, encoded: EncodedVideoFrame)] {
        let encoder = try VP8Encoder(VP8EncoderConfiguration(
            width: 64, height: 48, bitrateBps: 500_000, frameDroppingEnabled: false))
        var out: [(VideoFrame, EncodedVideoFrame)] = []
        for index in 0..<frames {
            let source = CodecTestMedia.movingFrame(width: 64, height: 48, index: index)
            for encoded in try encoder.encode(source, forceKeyframe: keyframeAt.contains(index)) {
                out.append((source, encoded))
            }
        }
        return out
    }

    @Test("malformed data throws and the decoder recovers on the next keyframe", arguments: Malformation.allCases)
    func malformedDataThrows(_ malformation: Malformation) throws {
        let stream = try Self.stream()
        let keyframe = stream[0].encoded
        #expect(keyframe.isKeyframe)
        let decoder = try VP8Decoder()
        for (_, encoded) in stream { _ = try decoder.decode(encoded) }

        let bad = malformation.apply(to: keyframe.data)
        #expect(throws: MediaCodecError.self, "\(malformation)") { try decoder.decode(bad) }

        let recovered = try #require(try decoder.decode(keyframe))
        #expect(PSNR.yuv(stream[0].source, recovered) >= 30)
    }

    @Test("an inter frame before any keyframe throws")
    func interframeFirst() throws {
        let stream = try Self.stream()
        #expect(!stream[1].encoded.isKeyframe)
        let decoder = try VP8Decoder()
        let error = #expect(throws: MediaCodecError.self) { try decoder.decode(stream[1].encoded) }
        #expect(error?.description.contains("libvpx") == true)
        #expect(try decoder.decode(stream[0].encoded) != nil)
    }

    @Test("after a damaged inter frame, pictures are withheld until a keyframe")
    func corruptionPropagatesUntilKeyframe() throws {
        let stream = try Self.stream(frames: 5, keyframeAt: [4])
        let decoder = try VP8Decoder()
        _ = try decoder.decode(stream[0].encoded)
        _ = try decoder.decode(stream[1].encoded)
        // Cut the last (token) partition short: libvpx decodes it but flags the picture.
        let damaged = Array(stream[2].encoded.data.prefix(stream[2].encoded.data.count / 2))
        #expect(throws: MediaCodecError.self) { try decoder.decode(damaged) }
        let next = #expect(throws: MediaCodecError.self) { try decoder.decode(stream[3].encoded) }
        #expect(next == .corruptFrame)
        #expect(stream[4].encoded.isKeyframe)
        let picture = try #require(try decoder.decode(stream[4].encoded))
        #expect(PSNR.yuv(stream[4].source, picture) >= 30)
    }

    @Test("randomly damaged frames never crash the decoder")
    func fuzzedFramesDoNotCrash() throws {
        let stream = try Self.stream(frames: 4)
        let decoder = try VP8Decoder()
        var seed: UInt64 = 0x5eed
        for round in 0..<300 {
            var bytes = stream[round % stream.count].encoded.data
            for _ in 0..<(1 + round % 8) {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let position = Int(seed >> 33) % bytes.count
                bytes[position] ^= UInt8(truncatingIfNeeded: seed >> 17) | 1
            }
            if round % 5 == 0 { bytes = Array(bytes.prefix(Int(seed >> 40) % bytes.count)) }
            _ = try? decoder.decode(bytes)
        }
        let picture = try #require(try decoder.decode(stream[0].encoded))
        #expect(PSNR.yuv(stream[0].source, picture) >= 30)
    }
}

@Suite("VP8 decoder size guard")
struct CodecVP8DecoderSizeGuardTests {
    @Test("a keyframe announcing more than maxPixels is rejected before libvpx allocates")
    func oversizedKeyframe() throws {
        let stream = try CodecVP8DecoderTests.stream(frames: 1)
        var bytes = stream[0].encoded.data
        let size = try #require(VP8Decoder.keyframeSize(bytes))
        #expect(size.width == 64 && size.height == 48)
        bytes[6] = 0xFF; bytes[7] = 0x3F; bytes[8] = 0xFF; bytes[9] = 0x3F  // 16383 × 16383
        let decoder = try VP8Decoder()
        let error = #expect(throws: MediaCodecError.self) { try decoder.decode(bytes) }
        #expect(error == .frameTooLarge(width: 16383, height: 16383, maxPixels: 3840 * 2160))
        #expect(try decoder.decode(stream[0].encoded) != nil)
    }
}
