import ArgumentParser
import Foundation
import StageControl

/// `stage-bench compose`: server-side composition's cost and latency, on loopback.
struct ComposeBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compose",
        abstract: "Server-side composition: compositor CPU against ffmpeg doing the same job, and LL-HLS latency read from the pixels.",
        discussion: """
            Starts its own stage-server (the stage-compositor it runs is the one beside it).
            Cost: --publishers `stage join --strategy broadcast` processes (test camera at --size and --fps, VP8
            simulcast, tone) on one stage, composed in a grid to 720p30 2.5 Mb/s + 360p30 833 kb/s on a LOW channel;
            after --warmup seconds the stage-compositor process is measured for --seconds (CPU from /proc, VmHWM,
            frames it held, counted from its 720p segments). Reference in the same trial: ffmpeg decoding four VP8
            files, xstack, the same two x264 encodes and AAC, as fast as it can over the same output seconds, twice:
            inputs at --size (as the publishers send) and at half that (the simulcast layer the compositor takes
            for a quarter-canvas tile).
            Latency: one host at --size, grid with gap 0 (its tile is the canvas, so its frame stamp is copied
            unscaled into the 720p rendition); an LL-HLS client (blocking reloads on the preload hint, each new part
            fetched at once) or, for NORMAL, a classic one (playlist polled every 100 ms) records when each part or
            segment arrives; the stamps give each frame's capture time; a simulated player holding back PART-HOLD-BACK
            (LOW) or 3 target durations (NORMAL) gives glass-to-glass.
            """)

    @Option(help: "Trials (cost windows with their reference runs, and LOW + NORMAL latency runs).") var trials = 3
    @Option(help: "Seconds of steady output measured per cost window and recorded per latency run.") var seconds = 20
    @Option(help: "Seconds of output before a window starts.") var warmup = 6
    @Option(help: "Publishers composed in the cost runs.") var publishers = 4
    @Option(help: "Publisher video size, WIDTHxHEIGHT (the canvas is 1280x720).") var size = "1280x720"
    @Option(help: "Publisher frame rate.") var fps = 30
    @Option(help: "stage-server binary (default: beside this tool; stage-compositor beside it).") var serverBin: String?
    @Option(help: "What to run: all, cost or latency.") var only = "all"

    func run() async throws {
        let sides = size.split(separator: "x").compactMap { Int($0) }
        guard sides.count == 2, ["all", "cost", "latency"].contains(only) else { throw ValidationError("--size WxH; --only all|cost|latency") }
        let server = try LocalStageServer(binary: serverBin.map { URL(fileURLWithPath: $0) } ?? LocalStageServer.defaultBinary,
                                          extraArguments: ["--log-level", "info"])
        try await server.start()
        defer { server.stop() }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("compose-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let control = ComposeControl(api: server.api)
        let encoder = try await control.createEncoderConfiguration(width: 1280, height: 720, framerate: 30, bitrate: 2_500_000)
        report("compose: server \(server.binary.path), log \(server.logFile.path); \(trials) trials, \(seconds) s windows, \(warmup) s warm-up")

        var costs: [(sample: ComposeCostSample, fullReference: Double, layerReference: Double)] = []
        if only != "latency" {
            costs = try await costTrials(server: server, control: control, encoder: encoder, width: sides[0], height: sides[1], scratch: scratch)
        }
        var latencies: [(low: ComposeLatencyResult, normal: ComposeLatencyResult)] = []
        if only != "cost" {
            latencies = try await latencyTrials(control: control, encoder: encoder, width: sides[0], scratch: scratch)
        }
        ComposeSummary(costs: costs, latencies: latencies).print(publishers: publishers, size: size, fps: fps, seconds: seconds)
    }

    private func costTrials(server: LocalStageServer, control: ComposeControl, encoder: String, width: Int, height: Int,
                            scratch: URL) async throws -> [(sample: ComposeCostSample, fullReference: Double, layerReference: Double)] {
        let reference = ComposeReference(scratch: scratch, seconds: seconds, fps: 30, canvas: (1280, 720),
                                         renditions: [(1280, 720, 2_500_000), (640, 360, 833_333)])
        let fullInputs = try reference.makeInputs(width: width, height: height, bitrate: 2_000_000)
        let layerInputs = try reference.makeInputs(width: width / 2, height: height / 2, bitrate: 500_000)
        let stage = try await server.api.createStage(name: "compose-bench-cost").arn
        var hosts: [Process] = []
        defer { hosts.forEach(ComposeProcesses.stop) }
        for index in 0..<publishers {
            let token = try await server.api.createParticipantToken(stageArn: stage, userId: "host\(index)", capabilities: ["PUBLISH"])
            hosts.append(try ComposeProcesses.startPublisher(token: token.token ?? "", size: size, fps: fps,
                                                             log: scratch.appendingPathComponent("host\(index).log")))
        }
        try await Task.sleep(for: .seconds(3))
        var results: [(sample: ComposeCostSample, fullReference: Double, layerReference: Double)] = []
        for trial in 1...trials {
            let sample = try await ComposeCost.measure(control: control, server: server, stageArn: stage, encoderArn: encoder,
                                                       warmup: Double(warmup), seconds: Double(seconds))
            try await Task.sleep(for: .seconds(1))
            let full = try reference.run(inputs: fullInputs), layer = try reference.run(inputs: layerInputs)
            report("cost \(trial): compositor \(fixed(sample.cpuPerSecond)) CPU s/s, peak RSS \(fixed(sample.peakRSSMegabytes, 0)) MB, "
                  + "\(sample.heldIntervals) held of \(sample.outputFrames) frames in \(fixed(sample.countedSeconds, 0)) s of segments "
                  + "(\(sample.lateReports) late reports)\(sample.compositorRestarted ? " RESTARTED" : ""); ffmpeg \(size) in "
                  + "\(fixed(full.cpuPerSecond)) s/s (\(fixed(full.wallSeconds, 1)) s wall) → \(fixed(sample.cpuPerSecond / full.cpuPerSecond, 2))×; "
                  + "\(width / 2)x\(height / 2) in \(fixed(layer.cpuPerSecond)) s/s → \(fixed(sample.cpuPerSecond / layer.cpuPerSecond, 2))×")
            if let late = sample.lastLateReport { report("  last late report: \(late)") }
            results.append((sample, full.cpuPerSecond, layer.cpuPerSecond))
        }
        // The compositor asks each publisher for the layer that fits its tile (signaling preferLayer).
        if let metrics = try? await server.metrics() {
            for line in metrics.split(separator: "\n") where line.contains("preferLayer") && !line.hasPrefix("#") { report("server metric: \(line)") }
        }
        return results
    }

    private func latencyTrials(control: ComposeControl, encoder: String, width: Int,
                               scratch: URL) async throws -> [(low: ComposeLatencyResult, normal: ComposeLatencyResult)] {
        let stage = try await control.api.createStage(name: "compose-bench-latency").arn
        let token = try await control.api.createParticipantToken(stageArn: stage, userId: "host", capabilities: ["PUBLISH"])
        let host = try ComposeProcesses.startPublisher(token: token.token ?? "", size: size, fps: fps, log: scratch.appendingPathComponent("host.log"))
        defer { ComposeProcesses.stop(host) }
        try await Task.sleep(for: .seconds(3))
        var results: [(low: ComposeLatencyResult, normal: ComposeLatencyResult)] = []
        for trial in 1...trials {
            var pair: [ComposeLatencyResult] = []
            for mode in ["LOW", "NORMAL"] {
                let result = try await ComposeLatency.measure(mode: mode, control: control, stageArn: stage, encoderArn: encoder, width: 1280,
                                                              warmup: Double(warmup), seconds: Double(seconds), scratch: scratch)
                let mismatch = result.decodeMismatch == 0 ? "" : " (decode mismatch \(result.decodeMismatch))"
                report("latency \(trial) \(mode): stamps \(result.readable)/\(result.frames)\(mismatch), \(result.heldIntervals) held; "
                      + "capture → \(mode == "LOW" ? "part" : "segment") available p50 \(fixed(percentile(result.toAvailable, 50))) "
                      + "p99 \(fixed(percentile(result.toAvailable, 99))) s (n=\(result.toAvailable.count)); player (hold-back "
                      + "\(fixed(result.holdBack, 2)) s, \(result.player.players) players, \(result.player.stalls) stalls) "
                      + "p50 \(fixed(percentile(result.player.latencies, 50))) p99 \(fixed(percentile(result.player.latencies, 99))) s")
                if !result.unreadable.isEmpty { report("  unreadable stamps at frame (of its segment): \(result.unreadable.prefix(20))") }
                pair.append(result)
            }
            results.append((pair[0], pair[1]))
        }
        return results
    }
}

/// A number with `digits` decimals.
func fixed(_ value: Double, _ digits: Int = 3) -> String { String(format: "%.\(digits)f", value) }

/// Prints a line and flushes it (progress shows as it comes, also into a file).
func report(_ line: String) {
    print(line)
    fflush(nil)
}
