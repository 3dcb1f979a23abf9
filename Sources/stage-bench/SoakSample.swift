import Foundation

/// One second's look at the server and the clients.
struct SoakSample: Sendable {
    var second: Int
    /// When it was taken.
    var at: ContinuousClock.Instant
    /// Resident set size in MiB (`VmRSS`) and open file descriptors, from /proc.
    var rssMiB: Double
    var fds: Int
    /// From /metrics: media peer connections (publish + subscribe) and consumers.
    var peers: Int
    var consumers: Int
    /// What the clients know is live now.
    var livePeers: Int
    var liveConsumers: Int
    /// Client-side totals so far.
    var received: Int
    var lost: Int
    var sent: Int
    /// `proscenium_media_dropped_total` by reason, so far.
    var drops: [String: Int]
    /// A forwarded-packets counter, if this server exports one (`proscenium_media_forwarded…`).
    var forwarded: Int?

    /// Peers the server holds that no live client owns (vanished, not yet reaped).
    var ghostPeers: Int { peers - livePeers }
}

/// Reads a process's memory and descriptors from /proc, and the server's Prometheus text.
enum ServerProbe {
    static func rssMiB(pid: Int32) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kB = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) else { return .nan }
        return kB / 1024
    }

    static func openFiles(pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// Sums of the samples named `name` (all label sets), and the drop counter by reason.
    struct Metrics {
        var values: [String: Double] = [:]
        var drops: [String: Int] = [:]

        init(_ text: String) {
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
                let series = line[..<space]
                let name = series.split(separator: "{").first.map(String.init) ?? String(series)
                values[name, default: 0] += value
                if name == "proscenium_media_dropped_total", value > 0,
                   let reason = series.split(separator: "\"").dropFirst().first {
                    drops[String(reason), default: 0] += Int(value)
                }
            }
        }

        /// Media packets the server forwarded (audio and video), if it exports the counter. (Not
        /// any `proscenium_media_forwarded…_total`: the bytes counter shares the prefix, and which
        /// of the two came first in the dictionary changed from sample to sample.)
        var forwarded: Int? {
            values["proscenium_media_forwarded_packets_total"].map { Int($0) }
        }
    }
}
