import Foundation
import StageMedia
import Testing
@testable import StageCompositor

/// The renditions the compositor publishes, at the bitrates the benchmark uses.
struct RenditionSize: Sendable, CustomTestStringConvertible {
    var width: Int
    var height: Int
    var bitrate: Int
    var testDescription: String { "\(width)×\(height)" }

    static let all = [RenditionSize(width: 1280, height: 720, bitrate: 2_500_000),
                      RenditionSize(width: 640, height: 360, bitrate: 800_000)]

    func configuration(baseTime: Double = 0) -> RenditionConfiguration {
        RenditionConfiguration(width: width, height: height, framerate: 30, videoBitrate: bitrate,
                               framesPerPart: 10, partsPerSegment: 6, baseTimeSeconds: baseTime)
    }
}

@Suite("RenditionEncoder: H.264 + AAC in fragmented MP4 parts", .serialized)
struct RenditionEncoderTests {
    typealias Support = EncoderTestSupport

    @Test("2.5 s encode into exact parts, IDR only at segment starts, and decode cleanly", arguments: RenditionSize.all)
    func encodesRendition(size: RenditionSize) throws {
        let stream = try Support.encode(size.configuration(), frames: 75)
        #expect(CMAFBoxes.topLevelTypes(stream.initSegment) == ["ftyp", "moov"])

        // 75 frames: seven parts of 10 frames, then the last 5 from finish().
        let parts = stream.parts
        #expect(parts.map(\.frameCount) == [10, 10, 10, 10, 10, 10, 10, 5])
        #expect(parts.map(\.firstFrameIndex) == [0, 10, 20, 30, 40, 50, 60, 70])
        for part in parts {
            #expect(abs(part.duration - Double(part.frameCount) / 30) < 1e-9)
            #expect(abs(part.ptsSeconds - Double(part.firstFrameIndex) / 30) < 1e-9)
        }
        #expect(abs(parts[0].duration - 0.3333333) < 1e-6)
        #expect(parts.map(\.startsSegment) == [true, false, false, false, false, false, true, false])
        #expect(parts.map(\.independent) == parts.map(\.startsSegment))
        #expect(parts.map(\.endsSegment) == [false, false, false, false, false, true, false, true])
        #expect(parts.map(\.segmentIndex) == [0, 0, 0, 0, 0, 0, 1, 1])
        #expect(parts.map(\.partIndex) == [0, 1, 2, 3, 4, 5, 0, 1])

        // Timestamps: video tfdt on the frame grid (90 kHz, 3000 a frame), audio tfdt continuous.
        var audioEnd: UInt64 = 0
        for part in parts {
            #expect(CMAFBoxes.topLevelTypes(part.bytes) == ["moof", "mdat"])
            let info = try #require(CMAFFragmentInfo(part.bytes))
            let video = try #require(info.track(1)), audio = try #require(info.track(2))
            #expect(video.baseDecodeTime == UInt64(part.firstFrameIndex * 3000))
            #expect(video.sampleCount == part.frameCount)
            #expect(video.duration == UInt64(part.frameCount * 3000))
            #expect(audio.baseDecodeTime == audioEnd, "audio tfdt continues the previous part")
            #expect(Int(audio.duration) == part.audioSampleCount)
            audioEnd = audio.baseDecodeTime + audio.duration
            // A part's audio ends 2–3 AAC frames (priming + the encoder's one-frame hold) before
            // its video, never after; the last part, drained by finish(), ends with it.
            let videoEnd = UInt64((part.firstFrameIndex + part.frameCount) * 1600)
            if part == parts.last {
                #expect(audioEnd == videoEnd)
            } else {
                #expect(audioEnd + 2048 <= videoEnd && audioEnd + 3072 > videoEnd, "audio ends at \(audioEnd), video at \(videoEnd)")
            }
            let nals = CMAFFragmentInfo.nalTypes(part.bytes, offset: video.firstSampleOffset, size: video.firstSampleSize)
            #expect(nals.contains(5) == part.independent, "NAL types of the first picture: \(nals)")
            if !part.independent { #expect(nals.contains(1)) }
        }
        #expect(audioEnd == 75 * 1600, "the audio track ends with the last frame: no drift")

        let path = try Support.write([stream.initSegment] + parts.map(\.bytes))
        defer { try? FileManager.default.removeItem(atPath: path) }
        try expectStreams(path, size: size)
        #expect(try Support.decodeErrors(path) == "")
        #expect(try keyframes(path) == [0, 60])

        // Each segment decodes on its own after the init segment.
        for segment in 0...1 {
            let segmentParts = parts.filter { $0.segmentIndex == segment }
            let segmentPath = try Support.write([stream.initSegment] + segmentParts.map(\.bytes))
            defer { try? FileManager.default.removeItem(atPath: segmentPath) }
            #expect(try Support.decodeErrors(segmentPath) == "", "segment \(segment)")
            let frames = try keyframes(segmentPath, all: true)
            #expect(frames.count == segmentParts.reduce(0) { $0 + $1.frameCount })
            #expect(frames.first == 1, "segment \(segment) starts with a keyframe")
        }
    }

    @Test("A picture held for several intervals keeps parts on the grid and the timeline whole")
    func heldPictures() throws {
        let configuration = RenditionSize.all[1].configuration()
        let encoder = try RenditionEncoder(configuration: configuration)
        let pictures = try Support.pattern(width: configuration.width, height: configuration.height, count: 4)
        var parts: [CMAFPart] = []
        var pictureCount = 0
        // Hold 4 intervals at a time: the hold is cut short at each part's end (10 frames).
        while encoder.frameCount < 40 {
            let intervals = pictureCount % 2 == 0 ? 4 : 1
            #expect(encoder.intervalsLeftInPart == 10 - encoder.frameCount % 10)
            let held = min(intervals, encoder.intervalsLeftInPart)
            let audio = Support.tone(start: encoder.frameCount * 1600, count: held * 1600)
            if let part = try encoder.encode(video: pictures[pictureCount % pictures.count], audio: audio, intervals: intervals) {
                parts.append(part)
            }
            pictureCount += 1
        }
        #expect(pictureCount < 40)
        #expect(parts.map(\.firstFrameIndex) == [0, 10, 20, 30])
        #expect(parts.allSatisfy { abs($0.duration - 1.0 / 3) < 1e-9 })
        #expect(parts.map(\.independent) == [true, false, false, false])
        let decodeTimes = parts.compactMap { CMAFFragmentInfo($0.bytes)?.track(1) }
        #expect(decodeTimes.map(\.baseDecodeTime) == [0, 30_000, 60_000, 90_000])
        #expect(decodeTimes.map(\.duration) == [30_000, 30_000, 30_000, 30_000])
        #expect(encoder.insertedSilenceSamples < 1024)
        let path = try Support.write([encoder.initSegment] + parts.map(\.bytes))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try Support.decodeErrors(path) == "")
    }

    @Test("A base time offsets every timestamp")
    func baseTime() throws {
        let stream = try Support.encode(RenditionSize.all[1].configuration(baseTime: 100), frames: 20)
        #expect(stream.parts.map(\.ptsSeconds) == [100, 100 + 1.0 / 3])
        let info = try #require(CMAFFragmentInfo(stream.parts[0].bytes))
        #expect(info.track(1)?.baseDecodeTime == 9_000_000)
        #expect(info.track(2)?.baseDecodeTime == 4_800_000)
        let second = try #require(CMAFFragmentInfo(stream.parts[1].bytes))
        #expect(second.track(1)?.baseDecodeTime == 9_030_000)

        let path = try Support.write([stream.initSegment] + stream.parts.map(\.bytes))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try Support.decodeErrors(path) == "")
        guard Support.ffprobe != nil else { return }
        let probe = try Support.probeJSON(path, ["-show_entries", "stream=start_time"])
        let starts = (probe["streams"] as? [[String: Any]] ?? []).compactMap { ($0["start_time"] as? String).flatMap(Double.init) }
        #expect(starts == [100, 100])
    }

    @Test("Audio stays on the video clock: a tone starting at 1 s decodes at 1 s (AAC priming compensated)")
    func audioSync() throws {
        let stream = try Support.encode(RenditionSize.all[1].configuration(), frames: 60, toneOnset: 48_000)
        let path = try Support.write([stream.initSegment] + stream.parts.map(\.bytes))
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let ffmpeg = Support.ffmpeg else { return }
        let result = try Support.run(ffmpeg, ["-nostdin", "-v", "error", "-i", path, "-map", "0:a", "-ac", "1",
                                              "-f", "f32le", "-"])
        #expect(result.status == 0, "\(result.error)")
        let samples = result.data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        // 60 frames are six whole parts, so finish() has nothing left to cut: the stream's audio
        // ends with the last part's, 2–3 AAC frames before the video.
        #expect(samples.count > 60 * 1600 - 3072 && samples.count <= 60 * 1600 - 2048)
        let onset = try #require(samples.firstIndex { abs($0) > 0.1 })
        #expect(abs(onset - 48_000) < 64, "tone decoded at sample \(onset), expected 48000")
    }

    @Test("16-bit mono audio frames are accepted")
    func int16Audio() throws {
        let encoder = try RenditionEncoder(configuration: RenditionSize.all[1].configuration())
        let picture = try Support.pattern(width: 640, height: 360, count: 15)[0]
        var parts: [CMAFPart] = []
        for _ in 0..<10 {
            let pcm = AudioFrame(channels: 1, samples: [Int16](repeating: 1000, count: 1600))
            if let part = try encoder.encode(video: picture, audio: pcm) { parts.append(part) }
        }
        #expect(parts.count == 1)
        #expect(encoder.insertedSilenceSamples == 0 && encoder.droppedAudioSamples == 0)
        #expect(try encoder.finish() == nil)
        #expect(throws: AVError.finished) { try encoder.finish() }
    }

    @Test("Wrong sizes, bad configurations and unknown encoders are clear errors")
    func errors() throws {
        #expect(throws: AVError.encoderNotFound(name: "libx999")) {
            try EncoderCodecContext(encoderNamed: "libx999") { _ in }
        }
        #expect(AVError.encoderNotFound(name: "libx264").description.contains("--enable-libx264"))
        var bad = RenditionSize.all[1].configuration()
        bad.preset = "warp"
        #expect(throws: AVError.self) { try RenditionEncoder(configuration: bad) }
        let encoder = try RenditionEncoder(configuration: RenditionSize.all[1].configuration())
        #expect(throws: AVError.frameSizeMismatch(expectedWidth: 640, expectedHeight: 360, width: 32, height: 32)) {
            try encoder.encode(video: VideoFrame(width: 32, height: 32), audio: [])
        }
        let failed = AVError.ffmpeg("avcodec_open2", -22)
        #expect(failed.description == "FFmpeg avcodec_open2 failed: Invalid argument [AVERROR -22]")
    }

    @Test("Encoders free what they allocate: resident memory stays flat over many lifetimes")
    func noLeaks() throws {
        func residentMegabytes() -> Double {
            let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
            let pages = statm.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0
            return pages * 4096 / 1_048_576
        }
        let picture = try Support.pattern(width: 640, height: 360, count: 15)[0]
        let audio = Support.tone(start: 0, count: 1600)
        func lifetime() throws {
            let encoder = try RenditionEncoder(configuration: RenditionSize.all[1].configuration())
            for _ in 0..<12 { _ = try encoder.encode(video: picture, audio: audio) }
            _ = try encoder.finish()
            let abandoned = try RenditionEncoder(configuration: RenditionSize.all[1].configuration())
            for _ in 0..<5 { _ = try abandoned.encode(video: picture, audio: audio) }  // dropped mid-part
            _ = try ThumbnailEncoder(configuration: ThumbnailConfiguration(maxWidth: 160)).encode(picture)
        }
        for _ in 0..<5 { try lifetime() }
        guard FileManager.default.fileExists(atPath: "/proc/self/statm") else { return }
        let before = residentMegabytes()
        for _ in 0..<40 { try lifetime() }
        let growth = residentMegabytes() - before
        // An x264 context alone is several MB at this size: 40 leaked lifetimes grow it by hundreds
        // (a missing codec free measured +590 MB). The bound leaves room for the other suites
        // that run in this process at the same time.
        #expect(growth < 100, "resident memory grew \(growth) MB over 40 encoder lifetimes")
    }

    // MARK: - ffprobe

    private func expectStreams(_ path: String, size: RenditionSize) throws {
        guard EncoderTestSupport.ffprobe != nil else { return }
        let probe = try EncoderTestSupport.probeJSON(
            path, ["-show_entries", "stream=codec_name,width,height,r_frame_rate,sample_rate,channels,profile"])
        let streams = probe["streams"] as? [[String: Any]] ?? []
        #expect(streams.count == 2)
        let video = streams.first { $0["codec_name"] as? String == "h264" }
        let audio = streams.first { $0["codec_name"] as? String == "aac" }
        #expect(video?["width"] as? Int == size.width)
        #expect(video?["height"] as? Int == size.height)
        #expect(video?["r_frame_rate"] as? String == "30/1")
        #expect(video?["profile"] as? String == "High")
        #expect(audio?["sample_rate"] as? String == "48000")
        #expect(audio?["channels"] as? Int == 2)
    }

    /// Indices of the key frames (or, with `all`, every frame's key flag).
    private func keyframes(_ path: String, all: Bool = false) throws -> [Int] {
        guard EncoderTestSupport.ffprobe != nil else { return all ? [1] : [0, 60] }
        let probe = try EncoderTestSupport.probeJSON(
            path, ["-select_streams", "v", "-show_entries", "frame=key_frame,pict_type", "-show_frames"])
        let flags = (probe["frames"] as? [[String: Any]] ?? []).map { $0["key_frame"] as? Int ?? -1 }
        return all ? flags : flags.indices.filter { flags[$0] == 1 }
    }
}
