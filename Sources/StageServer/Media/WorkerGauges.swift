import Metrics
import Synchronization

/// Each media worker's share, as `/metrics` gauges refreshed at each scrape, labelled by
/// worker index (as many series as `--media-workers`): the routers (stages) on it, their peer
/// connections and consumers, the packets it read and sent, and its thread's CPU seconds.
/// Counts since start are gauges of a running total: a scrape's rate over them is per second.
enum WorkerGauges {
    private struct Series: Sendable {
        let routers, connections, consumers, packetsReceived, packetsSent, cpuSeconds: Gauge

        init(worker: Int) {
            let label = [("worker", String(worker))]
            routers = Gauge(label: "proscenium_media_worker_routers", dimensions: label)
            connections = Gauge(label: "proscenium_media_worker_peers", dimensions: label)
            consumers = Gauge(label: "proscenium_media_worker_consumers", dimensions: label)
            packetsReceived = Gauge(label: "proscenium_media_worker_packets_received", dimensions: label)
            packetsSent = Gauge(label: "proscenium_media_worker_packets_sent", dimensions: label)
            cpuSeconds = Gauge(label: "proscenium_media_worker_cpu_seconds", dimensions: label)
        }
    }

    /// Built once per worker, on the first scrape.
    private static let series = Mutex<[Int: Series]>([:])

    static func record(_ media: MediaService) async {
        let loads = media.workerLoads()
        for worker in media.workers {
            let series = Self.series.withLock { all in
                if let built = all[worker.index] { return built }
                let built = Series(worker: worker.index)
                all[worker.index] = built
                return built
            }
            let (routers, load) = loads[worker.index]
            series.routers.record(routers)
            series.connections.record(load.connections)
            series.consumers.record(load.consumers)
            let activity = await worker.activity()
            series.packetsReceived.record(activity.packetsReceived)
            series.packetsSent.record(activity.packetsSent)
            if let cpu = activity.cpuSeconds { series.cpuSeconds.record(cpu) }
        }
    }
}
