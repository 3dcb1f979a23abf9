import ArgumentParser
import Foundation
import StageCompositor
import StageKit
import StageMedia

/// `stage-compositor`: joins a stage invisibly (a subscribe-only token), composes what its
/// publishers send, and writes H.264/AAC CMAF chunks for HLS to stdout (`HLSChunkStream`).
/// The server starts one per composition and reads its stdout; EOF on stdin asks it to finish
/// (the last part is flushed), which is also what happens when the server goes away.
@main
struct CompositorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stage-compositor",
        abstract: "Compose a stage (grid or picture-in-picture, mixed audio) into H.264/AAC CMAF chunks on stdout.",
        discussion: "Started by stage-server for each composition; not meant to be run by hand except to debug.")

    @Option(help: "A subscribe-only participant token for the stage.") var token: String
    @Option(help: "Output frame rate (integer frames per second, 1–60).") var framerate: Double = 30
    @Option(help: "A rendition, WIDTHxHEIGHT@BITRATE (video bits per second); the first is the canvas. Repeat for more.")
    var rendition: [String] = ["1280x720@2500000", "640x360@833333"]
    @Option(help: "The layout as IVS's LayoutConfiguration JSON: {\"grid\": {...}} or {\"pip\": {...}}.")
    var layoutJSON: String = "{\"grid\":{}}"
    @Option(help: "Video frames per LL-HLS part.") var framesPerPart: Int = 10
    @Option(help: "Segment duration in seconds (a whole number of parts; every segment starts with an IDR).")
    var segmentSeconds: Double = 2
    @Option(help: "Where the output timeline starts, seconds (a restarted compositor continues the last one's).")
    var timelineStart: Double = 0
    @Option(help: "Seconds between JPEG thumbnails (chunks of kind thumbnail); none by default.") var thumbnailInterval: Int?
    @Option(help: "libx264 preset.") var preset: String = "veryfast"
    @Option(help: "libx264 threads per rendition (1: the least CPU per output second; 0: x264 decides).")
    var x264Threads: Int = 1
    @Option(help: "A CA file to trust for the server's https:// and wss:// URLs.") var caFile: String?

    func validate() throws {
        guard (1...60).contains(framerate) else { throw ValidationError("--framerate: must be 1–60, got \(framerate)") }
        guard (1...60).contains(framesPerPart) else { throw ValidationError("--frames-per-part: must be 1–60") }
        _ = try renditions()
        _ = try LayoutArgument.parse(layoutJSON)
    }

    func renditions() throws -> [RenditionConfiguration] {
        let fps = Int(framerate.rounded())
        let partsPerSegment = max(1, Int((segmentSeconds * Double(fps) / Double(framesPerPart)).rounded()))
        return try rendition.map { text in
            let parts = text.split(separator: "@")
            let size = parts.first?.split(separator: "x") ?? []
            guard parts.count == 2, size.count == 2, let width = Int(size[0]), let height = Int(size[1]), let bitrate = Int(parts[1]) else {
                throw ValidationError("--rendition: '\(text)' is not WIDTHxHEIGHT@BITRATE")
            }
            return RenditionConfiguration(width: width, height: height, framerate: fps, videoBitrate: bitrate,
                                          framesPerPart: framesPerPart, partsPerSegment: partsPerSegment, preset: preset,
                                          threads: x264Threads, baseTimeSeconds: timelineStart)
        }
    }

    func run() async throws {
        let output = ChunkOutput()
        let inputs = StageInputs()
        let mixer = AudioMixer()
        let settings = OutputRenderer.Settings(framerate: Int(framerate.rounded()), renditions: try renditions(),
                                               layout: try LayoutArgument.parse(layoutJSON), thumbnailIntervalSeconds: thumbnailInterval)
        let stageSide = try await CompositorStage(token: token, caFile: caFile, inputs: inputs, mixer: mixer)
        let renderer = try OutputRenderer(settings: settings, inputs: inputs, mixer: mixer, output: output) { participantId, rid in
            Task { @MainActor in stageSide.preferLayer(rid, for: participantId) }
        }
        renderer.start()
        CompositorLog.write("composing \(settings.renditions.map { "\($0.width)x\($0.height)" }.joined(separator: ", ")) at \(settings.framerate) fps")
        let reason = await stageSide.waitForEnd()
        CompositorLog.write("finishing: \(reason)")
        renderer.finish()
        await stageSide.leave()
    }
}

/// The stage side: join with the token, route media to the inputs and the mixer, and tell
/// `waitForEnd` when to stop — EOF on stdin (the server asks us to finish), SIGTERM/SIGINT,
/// or the stage ending the session for good.
@MainActor
final class CompositorStage {
    let stage: Stage
    let listener: StageListener
    private let ended = AsyncStream<String>.makeStream()
    private var signalSources: [any DispatchSourceSignal] = []

    init(token: String, caFile: String?, inputs: StageInputs, mixer: AudioMixer) async throws {
        listener = StageListener(inputs: inputs) { participantId, frame in
            mixer.push(frame, from: participantId)
            inputs.noteAudio(frame, from: participantId)
        }
        stage = try Stage(token: token, strategy: listener, tls: StageTLSConfiguration(caFile: caFile))
        stage.addRenderer(listener)
        let continuation = ended.continuation
        listener.onDisconnect = { error in continuation.yield("the stage ended the session: \(error?.message ?? "disconnected")") }
        listener.onPublisherLeft = { participantId in mixer.removeSource(participantId) }
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler { continuation.yield("signal \(signalNumber)") }
            source.resume()
            signalSources.append(source)
        }
        Thread.detachNewThread {
            while !FileHandle.standardInput.availableData.isEmpty {}
            continuation.yield("stdin closed")
        }
        do {
            try await stage.join()
        } catch let error as StageError {
            throw ValidationError("could not join the stage: \(error.message)")
        }
    }

    func preferLayer(_ rid: String, for participantId: String) {
        stage.preferLayer(rid, forParticipant: participantId)
    }

    func waitForEnd() async -> String {
        for await reason in ended.stream { return reason }
        return "ended"
    }

    func leave() {
        if stage.connectionState != .disconnected { stage.leave() }
    }
}
