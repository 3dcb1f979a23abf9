import Foundation
import NIOCore
import StageSubprocess
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

/// A thread's CPU time from /proc/self/task/<tid>/stat (`ProcStat`: utime and stime).
enum ThreadCPU {
    static func seconds(threadID: Int32) -> Double? {
        guard threadID > 0 else { return nil }
        return ProcStat.read("/proc/self/task/\(threadID)/stat")?.cpuSeconds()
    }
}
