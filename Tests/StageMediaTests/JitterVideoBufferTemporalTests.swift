import Testing
@testable import StageMedia
import StageWire

/// The VP8 jitter buffer on a stream with temporal layers (RFC 7741 §4.2): a frame lost above
/// the base layer costs that frame and those predicting from it, not a keyframe.
@Suite("Video jitter buffer, temporal layers")
struct JitterVideoBufferTemporalTests {
    /// One frame of a temporal pattern: TID, Y, N.
    struct PatternFrame {
        var layer: UInt8
        var sync: Bool
        var nonReference: Bool
    }

    /// The SDK's L1T3 (`VP8TemporalPattern`): TL2 frames update nothing (N = 1).
    static let sdkPattern = [PatternFrame(layer: 0, sync: false, nonReference: false),
                             PatternFrame(layer: 2, sync: true, nonReference: true),
                             PatternFrame(layer: 1, sync: true, nonReference: false),
                             PatternFrame(layer: 2, sync: false, nonReference: true)]
    /// libwebrtc's L1T3: the first TL2 frame updates the altref that the second predicts from.
    static let libwebrtcPattern = [PatternFrame(layer: 0, sync: false, nonReference: false),
                                   PatternFrame(layer: 2, sync: true, nonReference: false),
                                   PatternFrame(layer: 1, sync: true, nonReference: false),
                                   PatternFrame(layer: 2, sync: false, nonReference: false)]

    /// `count` frames of `pattern` from a keyframe, 3 packets each, PictureIDs 0, 1, 2…
    static func stream(_ pattern: [PatternFrame], count: Int = 16) -> [[ReceivedRTPPacket]] {
        var sender = VP8TestSender()
        return (0..<count).map { index in
            let frame = pattern[index % pattern.count]
            let data = index == 0 ? RTPTestMedia.keyframe(size: 250, seed: index) : RTPTestMedia.deltaFrame(size: 250, seed: index)
            return sender.send(EncodedVideoFrame(data: data, isKeyframe: index == 0, width: 640, height: 480, captureTimeMicros: 0,
                                                 temporalLayerID: frame.layer, layerSync: frame.sync && index != 0,
                                                 nonReferenceFrame: frame.nonReference))
        }
    }

    /// Plays `packets` 33 ms apart (the 200 ms wait expires three frames before the end), then
    /// pops once more a second later; returns the PictureIDs emitted.
    static func play(_ packets: [[ReceivedRTPPacket]], into buffer: inout VideoJitterBuffer) -> [UInt16?] {
        var out = JitterVideoBufferTests.play(packets, into: &buffer)
        out += buffer.popCompleteFrames(now: 2_000_000, rtt: JitterVideoBufferTests.rtt)
        return out.map(\.pictureID)
    }

    static func pictures(except skipped: Set<UInt16>, count: Int = 16) -> [UInt16?] {
        (0..<UInt16(count)).filter { !skipped.contains($0) }.map { $0 }
    }

    struct Loss: CustomTestStringConvertible, Sendable {
        var name: String
        var pattern: [PatternFrame]
        var frame: Int
        /// The whole frame, or only its middle packet.
        var whole: Bool
        var missingPictures: Set<UInt16>
        var dropped: Int
        var testDescription: String { name }
    }

    static let skippedLosses = [
        Loss(name: "SDK TL2 (N), part held: that frame only", pattern: sdkPattern, frame: 5, whole: false,
             missingPictures: [5], dropped: 1),
        Loss(name: "SDK TL2 (N), none held: its layer unknown, the next TL2 frame too", pattern: sdkPattern, frame: 5, whole: true,
             missingPictures: [5, 7], dropped: 1),
        Loss(name: "SDK TL2 non-sync, part held: that frame only", pattern: sdkPattern, frame: 7, whole: false,
             missingPictures: [7], dropped: 1),
        Loss(name: "SDK TL1: the TL2 frame predicting from it too", pattern: sdkPattern, frame: 6, whole: false,
             missingPictures: [6, 7], dropped: 2),
        Loss(name: "libwebrtc TL2 sync (N = 0): the TL2 frame predicting from it too", pattern: libwebrtcPattern, frame: 5, whole: false,
             missingPictures: [5, 7], dropped: 2),
        Loss(name: "SDK TL1, none held: TL2 waits for its next sync frame", pattern: sdkPattern, frame: 6, whole: true,
             missingPictures: [6, 7], dropped: 1),
    ]

    @Test("a frame lost above the base layer: decoding goes on without a keyframe", arguments: skippedLosses)
    func skipsAboveBaseLayer(loss: Loss) {
        var packets = Self.stream(loss.pattern)
        packets[loss.frame] = loss.whole ? [] : packets[loss.frame].enumerated().filter { $0.offset != 1 }.map(\.element)
        var buffer = VideoJitterBuffer()
        let out = Self.play(packets, into: &buffer)
        #expect(out == Self.pictures(except: loss.missingPictures))
        #expect(!buffer.keyframeNeeded && !buffer.keyframeRequestDue(now: 2_000_000))
        #expect(buffer.statistics.lossesSkipped == 1)
        #expect(buffer.statistics.framesDropped == loss.dropped)
        #expect(buffer.statistics.packetsLost == (loss.whole ? 3 : 1))
        #expect(buffer.heldPacketCount == 0 && buffer.nacksDue(now: 2_000_000, rtt: 0).isEmpty)
    }

    @Test("a lost TL0 frame (TL0PICIDX jumps, or its packets say TID 0): only a keyframe helps", arguments: [true, false])
    func baseLayerLossNeedsKeyframe(whole: Bool) {
        var packets = Self.stream(Self.sdkPattern)
        packets[8] = whole ? [] : packets[8].enumerated().filter { $0.offset != 1 }.map(\.element)
        var buffer = VideoJitterBuffer()
        let out = Self.play(packets, into: &buffer)
        #expect(out == Self.pictures(except: []).prefix(8).map { $0 })
        #expect(buffer.keyframeNeeded && buffer.keyframeRequestDue(now: 2_000_000))
        #expect(buffer.statistics.lossesSkipped == 0)
    }

    @Test("two losses a period apart: each skipped, the layers whole again in between")
    func lossesInARow() {
        var packets = Self.stream(Self.sdkPattern, count: 24)
        packets[6] = []   // TL1, none held: TL2 broken until frame 9
        packets[14] = packets[14].dropLast()   // TL1 again, its end lost
        var buffer = VideoJitterBuffer()
        let out = Self.play(packets, into: &buffer)
        #expect(out == Self.pictures(except: [6, 7, 14, 15], count: 24))
        #expect(!buffer.keyframeNeeded && buffer.statistics.lossesSkipped == 2)
    }

    @Test("a repair in time: every frame, no skip")
    func repairedInTime() {
        var packets = Self.stream(Self.sdkPattern)
        let lost = packets[6].remove(at: 1)
        var buffer = VideoJitterBuffer()
        var out = JitterVideoBufferTests.play(Array(packets[...8]), into: &buffer)
        _ = buffer.insert(lost, now: JitterVideoBufferTests.ms(290))
        out += buffer.popCompleteFrames(now: JitterVideoBufferTests.ms(290), rtt: JitterVideoBufferTests.rtt)
        #expect(out.map(\.pictureID) == Self.pictures(except: [], count: 9))
        #expect(buffer.statistics.lossesSkipped == 0 && buffer.statistics.framesDropped == 0)
    }
}

/// The same with real libvpx pictures: what the buffer emits after a loss decodes to exactly
/// the pictures of a lossless run (VP8 decoding is deterministic given the same references).
@Suite("Video jitter buffer, temporal layers (libvpx)")
struct JitterVideoBufferTemporalDecodeTests {
    static let count = 16

    /// A real L1T3 stream (textured, moving), one frame per entry.
    static func encode() throws -> [EncodedVideoFrame] {
        try CodecVP8TemporalLayerTests.encode(layers: 3, count: count, bitrateBps: 500_000, texture: true).map(\.frame)
    }

    /// Decodes `frames` in order, leaving out those not in `indices`; pictures by frame index.
    static func decode(_ frames: [EncodedVideoFrame], only indices: Set<Int>) throws -> [Int: VideoFrame] {
        let decoder = try VP8Decoder()
        var pictures: [Int: VideoFrame] = [:]
        for (index, frame) in frames.enumerated() where indices.contains(index) {
            guard let picture = try decoder.decode(frame) else {
                Issue.record("frame \(index) decoded to no picture")
                continue
            }
            pictures[index] = picture
        }
        return pictures
    }

    /// The frame indices the buffer emits when `lost` frames never arrive (PictureIDs start at 0).
    static func emitted(_ frames: [EncodedVideoFrame], losing lost: Set<Int>) -> Set<Int> {
        var sender = VP8TestSender(maxPayloadSize: 1200)
        let packets = frames.enumerated().map { index, frame in
            let sent = sender.send(frame)
            return lost.contains(index) ? [] : sent
        }
        var buffer = VideoJitterBuffer()
        var out = JitterVideoBufferTests.play(packets, into: &buffer)
        out += buffer.popCompleteFrames(now: 2_000_000, rtt: JitterVideoBufferTests.rtt)
        #expect(!buffer.keyframeNeeded && buffer.statistics.lossesSkipped == 1)
        return Set(out.compactMap { $0.pictureID.map(Int.init) })
    }

    static func indices(except left: Set<Int>) -> Set<Int> { Set(0..<count).subtracting(left) }

    @Test("a lost TL1 or TL2 frame: the frames emitted decode to the lossless run's pictures",
          arguments: [(6, [6, 7]), (5, [5, 7]), (7, [7])] as [(Int, Set<Int>)])
    func emittedFramesDecodeExactly(lost: Int, missing: Set<Int>) throws {
        let frames = try Self.encode()
        let lossless = try Self.decode(frames, only: Self.indices(except: []))
        let emitted = Self.emitted(frames, losing: [lost])
        #expect(emitted == Self.indices(except: missing))
        for (index, picture) in try Self.decode(frames, only: emitted) {
            #expect(picture.y == lossless[index]?.y && picture.u == lossless[index]?.u, "frame \(index) after losing \(lost)")
        }
    }

    @Test("the frame held back after a lost TL1 frame would have decoded wrong")
    func heldBackFrameWouldBeWrong() throws {
        let frames = try Self.encode()
        let lossless = try Self.decode(frames, only: Self.indices(except: []))
        // Frame 7 (TL2) predicts from the golden buffer that frame 6 (TL1) refreshed.
        let blind = try Self.decode(frames, only: Self.indices(except: [6]))
        #expect(blind[7]?.y != lossless[7]?.y)
        #expect(blind[8]?.y == lossless[8]?.y, "frame 8 (TL0) predicts from TL0 only")
    }
}
