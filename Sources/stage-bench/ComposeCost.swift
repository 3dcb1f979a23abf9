import Foundation
import StageControl

/// One cost window of the compositor process.
struct ComposeCostSample {
    /// CPU seconds (user + system, /proc/<pid>/stat) per wall second = per output second.
    var cpuPerSecond = 0.0
    var windowSeconds = 0.0
    /// VmHWM of the compositor, MB.
    var peakRSSMegabytes = 0.0
    /// From the 720p output of the window's complete segments: frames encoded, and frame
    /// intervals covered by a held picture (the clock ran late).
    var outputFrames = 0
    var heldIntervals = 0
    var countedSeconds = 0.0
    /// "behind real time" lines the compositor wrote (via the server's log) during the window.
    var lateReports = 0
    /// The last of them, as logged.
    var lastLateReport: String?
    var compositorRestarted = false
}

/// The compositor's cost: a composition of the stage to a LOW channel, a warm-up, then a
/// window of steady output in which its CPU time is read from /proc and its 720p segments are
/// fetched to count the frames it held.
enum ComposeCost {
    static func measure(control: ComposeControl, server: LocalStageServer, stageArn: String, encoderArn: String,
                        warmup: Double, seconds: Double) async throws -> ComposeCostSample {
        guard let serverPid = server.processIdentifier else { throw BenchError("the server is not running") }
        let channel = try await control.createChannel(name: "compose-bench-cost", latencyMode: "LOW")
        let composition = try await control.startComposition(stageArn: stageArn, channelArn: channel.arn, encoderArn: encoderArn,
                                                             layout: ["grid": [String: Any]()])
        do {
            let sample = try await window(server: server, serverPid: serverPid, playback: channel.playback, warmup: warmup, seconds: seconds)
            await control.stopComposition(arn: composition)
            return sample
        } catch {
            await control.stopComposition(arn: composition)
            throw error
        }
    }

    private static func window(server: LocalStageServer, serverPid: Int32, playback: URL, warmup: Double,
                               seconds: Double) async throws -> ComposeCostSample {
        var pid: Int32?
        let found = ContinuousClock.now + .seconds(10)
        while pid == nil, ContinuousClock.now < found {
            pid = ComposeProcesses.compositorPid(parent: serverPid)
            if pid == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        guard let pid else { throw BenchError("no stage-compositor child of the server within 10 s") }
        let media = try await ComposeHLSClient.variant(playback, named: "720p")
        try await Task.sleep(for: .seconds(warmup))
        let logStart = (try? FileManager.default.attributesOfItem(atPath: server.logFile.path)[.size] as? Int) ?? 0
        let cpuStart = processCPUSeconds(pid: pid), wallStart = ContinuousClock.now
        let dateStart = Date().timeIntervalSince1970
        var counted: [MediaKey: [ComposeFragments.Sample]] = [:]
        var track: ComposeFragments.Track?
        var segmentSeconds = 2.0
        while ContinuousClock.now < wallStart + .seconds(seconds) {
            try await Task.sleep(for: .seconds(min(1.0, seconds)))
            // Segments wholly inside the window so far (PROGRAM-DATE-TIME: the compositor's clock).
            guard let text = try? await ComposeHTTP.text(media) else { continue }
            let view = MediaPlaylistView(text)
            segmentSeconds = view.targetDuration
            if track == nil, let map = view.mapURI {
                track = ComposeFragments.videoTrack(initSection: try await ComposeHTTP.fetch(media.deletingLastPathComponent().appendingPathComponent(map)))
            }
            let end = dateStart + (ContinuousClock.now - wallStart) / .seconds(1)
            for (key, start) in view.datedSegments where start >= dateStart && start + segmentSeconds <= end + 0.05 && counted[key] == nil {
                guard let track, let bytes = try? await ComposeHTTP.fetch(media.deletingLastPathComponent().appendingPathComponent(MediaPlaylistView.uri(key))) else { continue }
                counted[key] = ComposeFragments.samples(bytes, track: track)
            }
        }
        var sample = ComposeCostSample()
        sample.windowSeconds = (ContinuousClock.now - wallStart) / .seconds(1)
        sample.cpuPerSecond = (processCPUSeconds(pid: pid) - cpuStart) / sample.windowSeconds
        sample.peakRSSMegabytes = ComposeProcesses.peakRSSMegabytes(pid: pid)
        sample.compositorRestarted = ComposeProcesses.compositorPid(parent: serverPid) != pid
        let all = counted.values.flatMap { $0 }
        let interval = Double(all.map(\.duration).filter { $0 > 0 }.min() ?? 1)
        sample.outputFrames = all.count
        sample.heldIntervals = all.reduce(0) { $0 + max(0, Int((Double($1.duration) / interval).rounded()) - 1) }
        sample.countedSeconds = Double(counted.count) * segmentSeconds
        if let log = FileHandle(forReadingAtPath: server.logFile.path) {
            try? log.seek(toOffset: UInt64(logStart))
            let text = String(decoding: log.readDataToEndOfFile(), as: UTF8.self)
            try? log.close()
            let late = text.split(separator: "\n").filter { $0.contains("behind real time") }
            sample.lateReports = late.count
            sample.lastLateReport = late.last.map { String($0.suffix(from: $0.range(of: "behind")!.lowerBound)) }
        }
        return sample
    }
}
