import Foundation
import StageHLS
import StageLayout
import StageProtocol
import StageSubprocess

/// Runs each composition in its own `stage-compositor` process, so a slow or crashing encoder
/// never touches forwarding: feeds its output to the channel's HLS origin and the recording,
/// restarts it when it dies (destinations RECONNECTING meanwhile, the playlists go on after an
/// EXT-X-DISCONTINUITY), and reports every state change to the board.
actor CompositorSupervisor: CompositionRunner {
    struct Environment: Sendable {
        /// The `stage-compositor` executable.
        var executable: URL
        var origin: HLSOrigin
        var board: CompositionBoard
        /// A subscribe-only token for the stage: the compositor is invisible, like a moderator.
        var mintToken: @Sendable (_ stageId: String, _ compositionId: String) throws -> String
        /// A CA file the compositor trusts when the server speaks TLS with its own certificate.
        var caFile: String?
        /// LL-HLS part target in frames (10 at 30 fps ≈ 0.33 s) and the segment duration.
        var framesPerPart = 10
        var segmentSeconds = 2
        /// Restarts allowed within a minute before the composition FAILS.
        var maxRestartsPerMinute = 5
    }

    private let environment: Environment
    private var stopping: Set<String> = []
    private var processes: [String: CompositorProcess] = [:]

    init(environment: Environment) { self.environment = environment }

    nonisolated func start(_ plan: CompositionPlan) async {
        Task { await self.run(plan) }
    }

    func stop(compositionId: String) async {
        stopping.insert(compositionId)
        processes[compositionId]?.finish()
    }

    /// The renditions: the configured size, and half of it at a third of the bitrate.
    static func renditions(_ video: CompositionPlan.VideoEncoding) -> [HLSChannelFeed.RenditionInfo] {
        let fps = Int(video.framerate.rounded())
        let halfWidth = max(2, video.width / 4 * 2), halfHeight = max(2, video.height / 4 * 2)
        let audio = 128_000
        return [
            .init(name: "\(video.height)p\(fps)", width: video.width, height: video.height, frameRate: video.framerate,
                  bandwidth: video.bitrate + audio),
            .init(name: "\(halfHeight)p\(fps)", width: halfWidth, height: halfHeight, frameRate: video.framerate,
                  bandwidth: max(200_000, video.bitrate / 3) + audio),
        ]
    }

    private func run(_ plan: CompositionPlan) async {
        let id = plan.compositionId
        let board = environment.board
        let renditions = Self.renditions(plan.video)
        if let channel = plan.channel {
            let partTarget = Double(environment.framesPerPart) / plan.video.framerate
            await environment.origin.open(channelId: channel.channelId, feed: HLSChannelFeed(
                renditions: renditions, lowLatency: channel.latencyMode != "NORMAL", partTarget: partTarget,
                segmentTarget: Double(environment.segmentSeconds), windowSegments: channel.latencyMode == "NORMAL" ? 6 : 8))
        }
        var recorder: CompositionRecorder?
        if let recording = plan.recording {
            do {
                recorder = try CompositionRecorder(directory: recording.directory, renditions: renditions,
                                                   targetSegmentDuration: Double(recording.targetSegmentDurationSeconds),
                                                   thumbnailStorage: recording.thumbnailStorage.isEmpty ? ["SEQUENTIAL"] : recording.thumbnailStorage)
            } catch {
                await board.destination(recording.destinationIndex, of: id, didBecome: .failed,
                                        reason: "recording directory \(recording.directory.path) is not writable: \(error.localizedDescription)")
            }
        }
        var restarts: [ContinuousClock.Instant] = []
        var becameActive = false
        var timeline = 0.0
        var failure: String?
        attempts: while !stopping.contains(id) {
            let process: CompositorProcess
            do {
                process = try CompositorProcess(executable: environment.executable, arguments: arguments(plan, timelineStart: timeline),
                                                label: "compositor \(id)")
            } catch {
                failure = "cannot start \(environment.executable.path): \(error.localizedDescription)"
                break
            }
            processes[id] = process
            if stopping.contains(id) { process.finish() }
            var producing = false
            for await output in process.output {
                guard case .chunk(let chunk) = output else {
                    if case .closed(let reason) = output, reason != "output ended" {
                        ServerLog.composition.error("compositor output refused", metadata: ["composition": "\(id)", "reason": "\(reason)"])
                    }
                    continue
                }
                if let channel = plan.channel { await environment.origin.receive(chunk, channelId: channel.channelId) }
                if let active = recorder {
                    do {
                        try active.receive(chunk)
                    } catch {
                        recorder = nil
                        if let recording = plan.recording {
                            await board.destination(recording.destinationIndex, of: id, didBecome: .failed,
                                                    reason: "recording write failed: \(error.localizedDescription)")
                        }
                    }
                }
                if chunk.kind == .part && chunk.rendition == 0 { timeline += chunk.duration }
                if chunk.kind == .part && !producing {
                    producing = true
                    if !becameActive {
                        becameActive = true
                        await board.composition(id, didBecome: .active, reason: nil)
                    }
                    await report(plan, .active, recording: recorder != nil)
                }
            }
            await process.waitForExit(timeout: .seconds(5))
            processes[id] = nil
            if stopping.contains(id) { break }
            // Crashed or quit on its own: the channel shows RECONNECTING and goes on after a discontinuity.
            ServerLog.composition.error("compositor exited; restarting", metadata: [
                "composition": "\(id)", "status": "\(process.process.reapedStatus.map(String.init) ?? "not reaped yet")"])
            await report(plan, .reconnecting, recording: recorder != nil)
            if let channel = plan.channel { await environment.origin.producerLost(channelId: channel.channelId) }
            try? recorder?.producerLost()
            let now = ContinuousClock.now
            restarts = restarts.filter { now - $0 < .seconds(60) } + [now]
            if restarts.count > environment.maxRestartsPerMinute {
                failure = "the compositor exited \(restarts.count) times within a minute"
                break attempts
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
        if let channel = plan.channel { await environment.origin.end(channelId: channel.channelId) }
        do {
            try recorder?.finish()
        } catch {
            if let recording = plan.recording {
                await board.destination(recording.destinationIndex, of: id, didBecome: .failed,
                                        reason: "recording could not be completed: \(error.localizedDescription)")
            }
        }
        stopping.remove(id)
        if let failure {
            ServerLog.composition.error("composition failed", metadata: ["composition": "\(id)", "reason": "\(failure)"])
            await report(plan, .failed, recording: recorder != nil, reason: failure)
            await board.composition(id, didBecome: .failed, reason: failure)
        } else {
            await report(plan, .stopped, recording: recorder != nil)
            await board.composition(id, didBecome: .stopped, reason: nil)
        }
    }

    private func report(_ plan: CompositionPlan, _ state: DestinationState, recording: Bool, reason: String? = nil) async {
        if let channel = plan.channel {
            await environment.board.destination(channel.destinationIndex, of: plan.compositionId, didBecome: state, reason: reason)
        }
        if let target = plan.recording, recording {
            await environment.board.destination(target.destinationIndex, of: plan.compositionId, didBecome: state, reason: reason)
        }
    }

    private func arguments(_ plan: CompositionPlan, timelineStart: Double) throws -> [String] {
        let token = try environment.mintToken(plan.stageId, plan.compositionId)
        let renditions = Self.renditions(plan.video)
        var arguments = [
            "--token", token,
            "--framerate", String(plan.video.framerate),
            "--layout-json", CompositorArguments.layoutJSON(plan.layout),
            "--frames-per-part", String(environment.framesPerPart),
            "--segment-seconds", String(environment.segmentSeconds),
            "--timeline-start", String(timelineStart),
        ]
        for rendition in renditions {
            arguments += ["--rendition", "\(rendition.width)x\(rendition.height)@\(rendition.bandwidth - 128_000)"]
        }
        if let interval = plan.recording?.thumbnailIntervalSeconds { arguments += ["--thumbnail-interval", String(interval)] }
        if let caFile = environment.caFile { arguments += ["--ca-file", caFile] }
        return arguments
    }
}

/// How a plan's layout travels on the compositor's command line: IVS's own JSON shape
/// (`{"grid": {...}}` or `{"pip": {...}}`, StageLayout's coding), the same the API takes.
enum CompositorArguments {
    static func layoutJSON(_ layout: LayoutConfiguration) -> String {
        let data = (try? JSONEncoder().encode(layout)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
