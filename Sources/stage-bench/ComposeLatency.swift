import Foundation
import StageMedia

/// One latency run's figures (see ``ComposePlayerModel`` for the player).
struct ComposeLatencyResult {
    var mode: String
    var frames = 0
    var readable = 0
    /// Frames decoded ≠ samples in the fragments (should be 0).
    var decodeMismatch = 0
    /// Capture → the frame's part (LOW) or segment (NORMAL) available to the client, s.
    var toAvailable: [Double] = []
    var player = ComposePlayerModel.Result()
    var holdBack = 0.0
    var reloads = 0
    /// Frame intervals covered by a held (repeated) picture: the compositor ran late.
    var heldIntervals = 0
    /// Where unreadable stamps were: the frame's index in its segment.
    var unreadable: [Int] = []
}

/// Latency read from the pixels: one host publishes the test camera at the canvas size; the
/// grid (gap 0) gives its tile the whole canvas, so its picture (and the stamp in its top band)
/// is copied, not scaled, into the 720p rendition. The client records when each part or
/// segment arrived; ffmpeg decodes them afterwards and the stamps give each frame's capture time.
enum ComposeLatency {
    static func measure(mode: String, control: ComposeControl, stageArn: String, encoderArn: String, width: Int,
                        warmup: Double, seconds: Double, scratch: URL) async throws -> ComposeLatencyResult {
        let channel = try await control.createChannel(name: "compose-bench-\(mode.lowercased())", latencyMode: mode)
        let composition = try await control.startComposition(stageArn: stageArn, channelArn: channel.arn, encoderArn: encoderArn,
                                                             layout: ["grid": ["gridGap": 0]])
        let recording: HLSRecording
        do {
            let media = try await ComposeHLSClient.variant(channel.playback, named: "720p")
            try await ComposeHLSClient.waitForSegments(media, count: 1)
            // NORMAL players start 3 segments back: have them listed before recording.
            try await Task.sleep(for: .seconds(mode == "NORMAL" ? max(warmup, 8) : warmup))
            recording = mode == "NORMAL" ? try await ComposeHLSClient.recordClassic(media: media, seconds: seconds)
                : try await ComposeHLSClient.recordLowLatency(media: media, seconds: seconds)
        } catch {
            await control.stopComposition(arn: composition)
            throw error
        }
        await control.stopComposition(arn: composition)
        return try analyze(recording, mode: mode, width: width, scratch: scratch)
    }

    static func analyze(_ recording: HLSRecording, mode: String, width: Int, scratch: URL) throws -> ComposeLatencyResult {
        guard let track = ComposeFragments.videoTrack(initSection: recording.initSection), track.timescale > 0 else {
            throw BenchError("no video track in the init section")
        }
        let run = contiguousRun(recording.media)
        guard !run.isEmpty else { throw BenchError("\(mode): nothing decodable was recorded") }
        let samples = run.map { ComposeFragments.samples($0.bytes, track: track) }
        let captures = try ComposeStamps.captureTimes(initSection: recording.initSection, fragments: run.map(\.bytes),
                                                      width: width, scratch: scratch)
        var result = ComposeLatencyResult(mode: mode, holdBack: recording.holdBack, reloads: recording.reloads)
        let total = samples.reduce(0) { $0 + $1.count }
        result.decodeMismatch = captures.count - total
        // One frame interval: the shortest sample (a held picture lasts several).
        let interval = Double(samples.joined().map(\.duration).filter { $0 > 0 }.min() ?? 1)
        var frames: [TimedFrame] = []
        var mediaEnd: [MediaKey: Double] = [:]
        var index = 0, inSegment = 0
        for (item, itemSamples) in zip(run, samples) {
            if item.key.part <= 0 { inSegment = 0 }
            for sample in itemSamples {
                let capture = index < captures.count ? captures[index] : nil
                if capture == nil { result.unreadable.append(inSegment) }
                index += 1
                inSegment += 1
                frames.append(TimedFrame(media: Double(sample.time) / Double(track.timescale), availableMicros: item.availableMicros,
                                         live: item.live, captureMicros: capture))
                result.heldIntervals += max(0, Int((Double(sample.duration) / interval).rounded()) - 1)
            }
            if let last = itemSamples.last { mediaEnd[item.key] = Double(last.time + UInt64(last.duration)) / Double(track.timescale) }
        }
        result.frames = frames.count
        result.readable = frames.filter { $0.captureMicros != nil }.count
        result.toAvailable = frames.compactMap { frame in
            guard frame.live, let capture = frame.captureMicros else { return nil }
            return Double(Int64(frame.availableMicros) - Int64(capture)) / 1e6
        }
        let edges = recording.edges.compactMap { observation in mediaEnd[observation.last].map { (observation.atMicros, $0) } }
        result.player = ComposePlayerModel.simulate(frames: frames, edges: edges, holdBack: recording.holdBack,
                                                    joinFrom: recording.startedMicros + 500_000, joinSpan: 2.0)
        return result
    }

    /// The recorded parts or segments in order from the first that starts a segment (an IDR),
    /// up to the first gap.
    static func contiguousRun(_ media: [FetchedMedia]) -> [FetchedMedia] {
        let ordered = media.sorted { $0.key < $1.key }
        guard let start = ordered.firstIndex(where: { $0.key.part <= 0 }) else { return [] }
        var run = [ordered[start]]
        for item in ordered[(start + 1)...] {
            let previous = run[run.count - 1].key
            let follows = item.key.part < 0 ? item.key.msn == previous.msn + 1
                : item.key == MediaKey(msn: previous.msn, part: previous.part + 1) || item.key == MediaKey(msn: previous.msn + 1, part: 0)
            guard follows else { break }
            run.append(item)
        }
        return run
    }
}
