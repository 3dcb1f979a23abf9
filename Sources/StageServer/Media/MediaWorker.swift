import Foundation
import NIOCore
import StageTransport

/// One media worker: an event loop of its own and its media engine — a UDP port and an
/// ICE-TCP port of its own, so a peer's packets reach the worker its stage's router lives on
/// and the per-packet path never crosses threads — and the candidates its answers advertise.
final class MediaWorker: Sendable {
    /// Its place among the workers: its ports are the first ones plus this.
    let index: Int
    let engine: MediaEngine
    let candidates: HostCandidates

    init(index: Int, engine: MediaEngine, candidates: HostCandidates) {
        self.index = index
        self.engine = engine
        self.candidates = candidates
    }

    var eventLoop: any EventLoop { engine.eventLoop }

    /// Worker n's thread is named this and n (`top -H`, /proc/<pid>/task/<tid>/comm).
    static let threadNamePrefix = "media-w"

    /// What the worker did so far, read on its loop for `/metrics`.
    struct Activity: Sendable {
        var packetsReceived = 0
        var packetsSent = 0
        /// CPU seconds its thread ran (user and system), nil where /proc cannot tell.
        var cpuSeconds: Double?
    }

    func activity() async -> Activity {
        let engine = self.engine
        let counts = (try? await eventLoop.submit { (engine.packetsReceived, engine.packetsSent) }.get()) ?? (0, 0)
        return Activity(packetsReceived: counts.0, packetsSent: counts.1, cpuSeconds: ThreadCPU.seconds(threadID: engine.threadID))
    }
}

/// A thread's CPU time from /proc/self/task/<tid>/stat (proc(5): utime and stime, fields 14
/// and 15, in clock ticks).
enum ThreadCPU {
    static func seconds(threadID: Int32) -> Double? {
        guard threadID > 0, let stat = try? String(contentsOfFile: "/proc/self/task/\(threadID)/stat", encoding: .utf8) else { return nil }
        return parse(stat: stat, ticksPerSecond: Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// The fields after the command name, which is in parentheses and may hold spaces.
    static func parse(stat: String, ticksPerSecond: Double) -> Double? {
        guard ticksPerSecond > 0, let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // Field 3 (state) is the first after the name: utime and stime are fields 14 and 15.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / ticksPerSecond
    }
}
