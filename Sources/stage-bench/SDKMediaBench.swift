import ArgumentParser
import Foundation
import StageControl
import StageKit
import StageMedia
import Synchronization

struct SDKMediaBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdk-media",
        abstract: "SDK media on loopback: join-to-first-decoded-frame, glass-to-glass latency, CPU of a simulcast publisher.",
        discussion: """
            Starts its own stage-server, and a publisher with `stage join` (test camera, VP8 simulcast, tone) in its own
            process. Then, --trials times, an SDK viewer in this process joins and waits for its first decoded frame
            (join-to-first-frame), and keeps watching for --seconds: every decoded frame carries its capture time in
            its pixels, so now − capture time is glass-to-glass latency (same machine, same monotonic clock).
            CPU of the publisher process over the run, per second and per captured frame; reference in the same run:
            ffmpeg encoding the same three layers with libvpx (realtime, same cpu-used) from a generated test source.
            Off the loopback: --server-url uses a running server (credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY)
            and --publisher-netns runs the publisher in another network namespace (Tests/interop/bench_offnet.py builds them).
            """)

    @Option(help: "Publisher video size, WIDTHxHEIGHT.") var size = "1280x720"
    @Option(help: "Publisher frame rate.") var fps = 30
    @Option(help: "Viewer joins measured.") var trials = 5
    @Option(help: "Seconds each viewer watches.") var seconds = 6
    @Option(help: "stage-server binary (default: beside this tool).") var serverBin: String?
    @Option(help: "A running server to use instead of starting one (its control plane and public URL).") var serverURL: String?
    @Option(help: "Network namespace to run the publisher in (`ip netns exec`).") var publisherNetns: String?

    func run() async throws {
        var server: LocalStageServer?
        let api: ControlPlaneClient
        if let serverURL {
            let environment = ProcessInfo.processInfo.environment
            guard let url = URL(string: serverURL), let id = environment["AWS_ACCESS_KEY_ID"], let secret = environment["AWS_SECRET_ACCESS_KEY"] else {
                throw ValidationError("--server-url needs an http(s) URL and AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY")
            }
            api = ControlPlaneClient(endpoint: url, accessKeyId: id, secretAccessKey: secret)
        } else {
            let local = try LocalStageServer(binary: serverBin.map { URL(fileURLWithPath: $0) } ?? LocalStageServer.defaultBinary)
            try await local.start()
            server = local
            api = local.api
        }
        defer { server?.stop() }
        let stageArn = try await api.createStage(name: "sdk-media-bench").arn
        let host = try await api.createParticipantToken(stageArn: stageArn, userId: "bench-host")
        let publisher = try startPublisher(token: host.token ?? "")
        defer { publisher.terminate(); publisher.waitUntilExit() }

        let cpuStart = processCPUSeconds(pid: publisher.processIdentifier), wallStart = ContinuousClock.now
        var firstFrame: [Double] = [], latency: [Double] = [], frames = 0
        for trial in 0...trials {   // trial 0 warms up (the publisher may still be connecting)
            let token = try await api.createParticipantToken(stageArn: stageArn, userId: "viewer-\(trial)", capabilities: ["SUBSCRIBE"])
            let result = try await watch(token: token.token ?? "", seconds: trial == 0 ? 1 : seconds)
            guard trial > 0 else { continue }
            if let first = result.firstFrameSeconds { firstFrame.append(first) }
            latency += result.latencies
            frames += result.latencies.count
        }
        let cpu = processCPUSeconds(pid: publisher.processIdentifier) - cpuStart
        let wall = (ContinuousClock.now - wallStart) / .seconds(1)
        let reference = try referenceEncodeCPU()
        let ours = cpu / wall / Double(fps) * 1000
        print("""
            sdk-media: publisher \(size) at \(fps) fps, simulcast, test camera + tone; \(trials) viewer joins, \(frames) frames decoded
              join → first decoded frame (s): \(summary(firstFrame))
              glass-to-glass latency (ms):    \(summary(latency.map { $0 * 1000 }))
              publisher CPU: \(String(format: "%.1f", cpu / wall * 100)) % of a core = \(String(format: "%.2f", ours)) ms per captured frame (capture, 3 layers, RTP, SRTP)
              reference ffmpeg libvpx, same layers: \(String(format: "%.2f", reference)) ms per frame → ours / ffmpeg \(String(format: "%.2f", ours / reference))×
            """)
    }

    private func summary(_ values: [Double]) -> String {
        guard !values.isEmpty else { return "no samples" }
        let sorted = values.sorted()
        func at(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))] }
        return String(format: "p50 %.3f  p95 %.3f  p99 %.3f  (n=%d)", at(0.5), at(0.95), at(0.99), sorted.count)
    }

    private func startPublisher(token: String) throws -> Process {
        let process = Process()
        let stage = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("stage")
        let join = ["join", "--token", token, "--size", size, "--fps", "\(fps)", "--status-interval", "0"]
        if let publisherNetns {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
            process.arguments = ["netns", "exec", publisherNetns, stage.path] + join
        } else {
            process.executableURL = stage
            process.arguments = join
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    struct WatchResult {
        var firstFrameSeconds: Double?
        var latencies: [Double]
    }

    /// Joins as a viewer and records decoded frames' glass-to-glass latency for `seconds`.
    @MainActor
    private func watch(token: String, seconds: Int) async throws -> WatchResult {
        let samples = Mutex<(first: UInt64?, latencies: [Double])>((nil, []))
        let watcher = LatencyWatcher { frame in
            guard let stamp = FrameStamp.read(from: frame) else { return }
            let now = MediaClock.nowMicros()
            samples.withLock { state in
                if state.first == nil { state.first = now }
                state.latencies.append(Double(Int64(now) - Int64(stamp.captureTimeMicros)) / 1e6)
            }
        }
        let stage = try Stage(token: token, strategy: watcher)
        stage.addRenderer(watcher)
        let start = MediaClock.nowMicros()
        try await stage.join()
        await waitUntil(.seconds(20)) { samples.withLock { $0.first } != nil }
        try await Task.sleep(for: .seconds(seconds))
        stage.leave()
        return samples.withLock { state in
            WatchResult(firstFrameSeconds: state.first.map { Double($0 - start) / 1e6 }, latencies: state.latencies)
        }
    }

    /// CPU ms per frame of ffmpeg encoding the same layers (libvpx realtime, one thread each).
    private func referenceEncodeCPU() throws -> Double {
        let sides = size.split(separator: "x").compactMap { Int($0) }
        let layers = SimulcastLayer.defaults(for: sides[0], height: sides[1])
        let frames = fps * 10
        var arguments = ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(fps):duration=10",
                         "-filter_complex", "split=\(layers.count)" + layers.indices.map { "[s\($0)]" }.joined() + ";" +
                            layers.enumerated().map { index, layer in "[s\(index)]scale=iw/\(layer.scaleDownBy):ih/\(layer.scaleDownBy)[o\(index)]" }.joined(separator: ";")]
        for (index, layer) in layers.enumerated() {
            arguments += ["-map", "[o\(index)]", "-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "6", "-threads", "1",
                          "-error-resilient", "1", "-lag-in-frames", "0", "-b:v", "\(layer.maxBitrateBps)", "-f", "null", "-"]
        }
        var before = rusage(), after = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &before)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        getrusage(RUSAGE_CHILDREN.rawValue, &after)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        let cpu = seconds(after.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_utime) - seconds(before.ru_stime)
        return cpu / Double(frames) * 1000
    }
}

/// Subscribes to everyone (audio and video) and hands every decoded picture to `onFrame`.
@MainActor
final class LatencyWatcher: StageStrategy, StageRenderer {
    let onFrame: @Sendable (VideoFrame) -> Void
    init(onFrame: @escaping @Sendable (VideoFrame) -> Void) { self.onFrame = onFrame }

    func stage(_ stage: Stage, shouldSubscribeToParticipant participant: ParticipantInfo) -> SubscribeType { .audioVideo }
    func stage(_ stage: Stage, shouldPublishParticipant participant: ParticipantInfo) -> Bool { false }
    func stage(_ stage: Stage, streamsToPublishForParticipant participant: ParticipantInfo) -> [LocalStageStream] { [] }

    func stage(_ stage: Stage, participant: ParticipantInfo, didAdd streams: [StageStream]) {
        for stream in streams where stream.kind == .video { (stream.device as? ImageDevice)?.setOnFrameCallback(onFrame) }
    }
}
