import Foundation

/// The closing table of `stage-bench compose`: each figure per trial, its median, and the target.
struct ComposeSummary {
    let costs: [(sample: ComposeCostSample, fullReference: Double, layerReference: Double)]
    let latencies: [(low: ComposeLatencyResult, normal: ComposeLatencyResult)]

    func print(publishers: Int, size: String, fps: Int, seconds: Int) {
        var rows: [(String, [Double], Int, String)] = []
        if !costs.isEmpty {
            rows += [
                ("compositor CPU s per output s", costs.map(\.sample.cpuPerSecond), 3, "≤ 0.5"),
                ("ffmpeg, \(size) VP8 in, CPU s per output s", costs.map(\.fullReference), 3, ""),
                ("compositor / ffmpeg (\(size) in)", costs.map { $0.sample.cpuPerSecond / $0.fullReference }, 2, "≤ 0.7"),
                ("ffmpeg, ½-size VP8 in, CPU s per output s", costs.map(\.layerReference), 3, ""),
                ("compositor / ffmpeg (½-size in)", costs.map { $0.sample.cpuPerSecond / $0.layerReference }, 2, ""),
                ("compositor peak RSS (MB)", costs.map(\.sample.peakRSSMegabytes), 0, ""),
                ("frames held (per 100 output frames)", costs.map { 100 * Double($0.sample.heldIntervals) / Double(max(1, $0.sample.outputFrames + $0.sample.heldIntervals)) }, 1, ""),
            ]
        }
        if !latencies.isEmpty {
            rows += [
                ("LOW capture → part available p50 (s)", latencies.map { percentile($0.low.toAvailable, 50) }, 3, ""),
                ("LOW capture → part available p99 (s)", latencies.map { percentile($0.low.toAvailable, 99) }, 3, "≤ 0.8"),
                ("LOW player glass-to-glass p50 (s)", latencies.map { percentile($0.low.player.latencies, 50) }, 3, ""),
                ("LOW player glass-to-glass p99 (s)", latencies.map { percentile($0.low.player.latencies, 99) }, 3, "≤ 2"),
                ("LOW player stalls", latencies.map { Double($0.low.player.stalls) }, 0, ""),
                ("NORMAL capture → segment available p50 (s)", latencies.map { percentile($0.normal.toAvailable, 50) }, 3, ""),
                ("NORMAL capture → segment available p99 (s)", latencies.map { percentile($0.normal.toAvailable, 99) }, 3, ""),
                ("NORMAL player glass-to-glass p50 (s)", latencies.map { percentile($0.normal.player.latencies, 50) }, 3, ""),
                ("NORMAL player glass-to-glass p99 (s)", latencies.map { percentile($0.normal.player.latencies, 99) }, 3, "≤ 6"),
                ("NORMAL player stalls", latencies.map { Double($0.normal.player.stalls) }, 0, ""),
            ]
        }
        let trials = max(costs.count, latencies.count)
        Swift.print("\ncompose: \(publishers) publishers \(size) \(fps) fps simulcast → grid 1280x720 2.5 Mb/s + 640x360 833 kb/s (cost);"
                    + " 1 host full canvas (latency); \(seconds) s per window")
        Swift.print("| figure | " + (1...max(1, trials)).map { "trial \($0)" }.joined(separator: " | ") + " | median | target |")
        Swift.print("|---|" + String(repeating: "---|", count: trials + 2))
        for (name, values, digits, target) in rows {
            Swift.print("| \(name) | " + values.map { fixed($0, digits) }.joined(separator: " | ") + " | **\(fixed(percentile(values, 50), digits))** | \(target) |")
        }
    }
}
