import Foundation
import StageCanvas
import StageCompositor
import StageLayout
import StageHLS
import StageMedia
import Synchronization

/// The output clock: every 1/fps it lays out the stage, draws each publisher's picture into the
/// canvas (the one captured when the audio being mixed was: lip sync from the sender reports),
/// mixes the audio that arrived, and encodes the canvas into every rendition; finished parts go
/// to `ChunkOutput`. Runs on its own thread, so a slow encoder delays only itself; when it falls
/// behind the wall clock it holds a picture for the intervals it missed and stays live.
final class OutputRenderer: @unchecked Sendable {
    struct Settings {
        var framerate: Int
        var renditions: [RenditionConfiguration]
        var layout: LayoutConfiguration
        var thumbnailIntervalSeconds: Int?
        /// A picture older than this is dropped (the publisher stalled): the tile shows its placeholder.
        var staleAfterMicros: UInt64 = 3_000_000
    }

    let settings: Settings
    let inputs: StageInputs
    let mixer: AudioMixer
    let output: ChunkOutput
    /// Called when a publisher's tile wants another simulcast layer ("q", "h" or "f").
    let onLayerWanted: @Sendable (String, String) -> Void
    private var encoders: [RenditionEncoder]
    private var thumbnails: ThumbnailEncoder?
    private var canvas: Canvas
    /// The smaller renditions' pictures, refilled from the canvas every frame.
    private var smallerCanvases: [Int: Canvas] = [:]
    private let layout: CompositionLayout
    private var tiles: [Tile] = []
    private var layoutVersion = -1
    private var wantedLayers: [String: String] = [:]
    private var frameIndex = 0
    /// Frame intervals skipped by holding a picture because the clock ran late.
    private var heldFrames = 0
    private var startWallMillis: Int64 = 0
    private let stopping = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    init(settings: Settings, inputs: StageInputs, mixer: AudioMixer, output: ChunkOutput,
         onLayerWanted: @escaping @Sendable (String, String) -> Void) throws {
        self.settings = settings
        self.inputs = inputs
        self.mixer = mixer
        self.output = output
        self.onLayerWanted = onLayerWanted
        encoders = try settings.renditions.map { try RenditionEncoder(configuration: $0) }
        if settings.thumbnailIntervalSeconds != nil { thumbnails = try ThumbnailEncoder() }
        let main = settings.renditions[0]
        canvas = Canvas(width: main.width, height: main.height)
        layout = CompositionLayout(canvas: LayoutSize(width: main.width, height: main.height), configuration: settings.layout)
        for (index, encoder) in encoders.enumerated() {
            output.write(HLSChunk(kind: .initialization, rendition: index, bytes: encoder.initSegment))
        }
    }

    /// Starts the clock on a new thread.
    func start() {
        Thread.detachNewThread { [self] in
            run()
            done.signal()
        }
    }

    /// Stops the clock, flushes the encoders (the last part, then `end` for every rendition).
    func finish() {
        stopping.store(true, ordering: .relaxed)
        done.wait()
        for (index, encoder) in encoders.enumerated() {
            do {
                if let part = try encoder.finish() { emit(part, rendition: index) }
            } catch {
                CompositorLog.write("rendition \(index): \(error)")
            }
            output.write(HLSChunk(kind: .end, rendition: index))
        }
    }

    private func run() {
        let frameMicros = 1_000_000 / UInt64(settings.framerate)
        let start = MediaClock.nowMicros()
        startWallMillis = Int64(Date().timeIntervalSince1970 * 1000)
        var lastLateReport: UInt64 = 0
        while !stopping.load(ordering: .relaxed) {
            let deadline = start + UInt64(frameIndex) * frameMicros
            let now = MediaClock.nowMicros()
            // Behind the wall clock (a starved CPU): hold this picture for the intervals missed,
            // so the output stays live rather than drifting late.
            var intervals = 1
            if deadline > now {
                usleep(UInt32(deadline - now))
            } else {
                intervals = 1 + Int((now - deadline) / frameMicros)
                if intervals > 1 {
                    heldFrames += intervals - 1
                    if now - lastLateReport > 5_000_000 {
                        lastLateReport = now
                        CompositorLog.write("behind real time by \((now - deadline) / 1000) ms at frame \(frameIndex); \(heldFrames) frames held so far")
                    }
                }
            }
            do {
                frameIndex += try renderFrame(intervals: intervals)
            } catch {
                CompositorLog.write("encoding failed: \(error); exiting")
                exit(4)
            }
        }
    }

    /// Draws and encodes one picture lasting up to `intervals` frame intervals (never past the
    /// end of a part); returns how many it lasted.
    private func renderFrame(intervals wanted: Int) throws -> Int {
        let snapshot = inputs.snapshot()
        let now = MediaClock.nowMicros()
        if snapshot.version != layoutVersion {
            layoutVersion = snapshot.version
            tiles = layout.tiles(for: snapshot.publishers.map { publisher in
                LayoutParticipant(participantId: publisher.participantId, userId: publisher.userId, attributes: publisher.attributes,
                                  hasVideo: publisher.showsVideo,
                                  videoSize: publisher.latest.map { LayoutSize(width: $0.width, height: $0.height) })
            })
            chooseLayers(snapshot)
        }
        let pictures = Dictionary(snapshot.publishers.compactMap { publisher -> (String, VideoFrame)? in
            guard publisher.showsVideo, now - publisher.latestMicros < settings.staleAfterMicros,
                  let frame = publisher.picture(forAudioAt: audioHeadSenderTime(publisher)) else { return nil }
            return (publisher.participantId, frame)
        }, uniquingKeysWith: { first, _ in first })
        canvas.clear()
        for tile in tiles { canvas.draw(tile, frame: pictures[tile.participantId]) }
        let intervals = max(1, min(wanted, encoders[0].intervalsLeftInPart))
        let samples = (frameIndex..<frameIndex + intervals).reduce(0) { $0 + Self.samples(forFrame: $1, framerate: settings.framerate) }
        let audio = mixer.mix(samplesPerChannel: samples)
        for (index, encoder) in encoders.enumerated() {
            let part: CMAFPart?
            if index == 0 {
                part = try canvas.withPlanes { planes in
                    try audio.withUnsafeBufferPointer { try encoder.encode(picture: planes, audio: $0, intervals: intervals) }
                }
            } else {
                let configuration = settings.renditions[index]
                var smaller = smallerCanvases.removeValue(forKey: index) ?? Canvas(width: configuration.width, height: configuration.height)
                canvas.downscale(into: &smaller)
                smallerCanvases[index] = smaller
                part = try smaller.withPlanes { planes in
                    try audio.withUnsafeBufferPointer { try encoder.encode(picture: planes, audio: $0, intervals: intervals) }
                }
            }
            if let part { emit(part, rendition: index) }
        }
        let every = (settings.thumbnailIntervalSeconds ?? 0) * settings.framerate
        if let thumbnails, every > 0, frameIndex / every != (frameIndex + intervals) / every || frameIndex == 0 {
            let jpeg = try canvas.withPlanes { try thumbnails.encode(picture: $0) }
            output.write(HLSChunk(kind: .thumbnail, rendition: 0, bytes: jpeg))
        }
        return intervals
    }

    /// The sender time of the next audio sample the mix takes from this publisher: the end of
    /// what it was given, less what is still queued.
    private func audioHeadSenderTime(_ publisher: StageInputs.Publisher) -> UInt64? {
        guard let end = publisher.audioSenderEndMicros else { return nil }
        let queued = UInt64(mixer.bufferedSamplesPerChannel(of: publisher.participantId)) * 1_000_000 / UInt64(AudioFrame.sampleRate)
        return end > queued ? end - queued : nil
    }

    private func emit(_ part: CMAFPart, rendition: Int) {
        let offset = Int64((Double(part.firstFrameIndex) / Double(settings.framerate) * 1000).rounded())
        output.write(HLSChunk(kind: .part, rendition: rendition, duration: part.duration, independent: part.independent,
                              startsSegment: part.startsSegment, endsSegment: part.endsSegment,
                              programDateMillis: startWallMillis + offset, bytes: part.bytes))
    }

    /// Audio samples per channel for frame `n`, so that frames 0…n hold (n+1)·48000/fps in all.
    static func samples(forFrame n: Int, framerate: Int) -> Int {
        (n + 1) * AudioFrame.sampleRate / framerate - n * AudioFrame.sampleRate / framerate
    }

    /// Asks each publisher for the smallest simulcast layer at least as large as its tile
    /// (layers are full, ½ and ¼ of the publisher's size): a 640×360 tile takes the half layer.
    private func chooseLayers(_ snapshot: StageInputs.Snapshot) {
        for tile in tiles {
            guard let publisher = snapshot.publishers.first(where: { $0.participantId == tile.participantId }),
                  let full = publisher.fullSize else { continue }
            let rid: String
            if full.width / 4 >= tile.rect.width && full.height / 4 >= tile.rect.height { rid = "q" }
            else if full.width / 2 >= tile.rect.width && full.height / 2 >= tile.rect.height { rid = "h" }
            else { rid = "f" }
            if wantedLayers[tile.participantId] != rid {
                wantedLayers[tile.participantId] = rid
                onLayerWanted(tile.participantId, rid)
            }
        }
    }
}
