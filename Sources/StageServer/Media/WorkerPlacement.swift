/// Where a stage's router goes: the media worker with the least load — its consumers (what
/// forwarding costs), then its peer connections (a publisher with no subscriber yet still
/// costs its receiving) — the first of those on a tie, so one stage on an idle server always
/// lands on the first worker and its first ports.
struct WorkerPlacement: Sendable, Equatable {
    /// One worker's load now.
    struct Load: Sendable, Equatable, Comparable {
        var consumers = 0
        var connections = 0

        static func < (a: Load, b: Load) -> Bool {
            (a.consumers, a.connections) < (b.consumers, b.connections)
        }
    }

    private(set) var loads: [Load]

    init(workers: Int) { loads = Array(repeating: Load(), count: max(workers, 1)) }

    /// The worker a new router goes to.
    func choose() -> Int {
        loads.indices.min { loads[$0] < loads[$1] } ?? 0
    }

    /// A connection opened (`consumers`: the consumers it brought) on `worker`, or closed with
    /// `connections` −1 and its consumers negated.
    mutating func change(worker: Int, consumers: Int = 0, connections: Int) {
        guard loads.indices.contains(worker) else { return }
        loads[worker].consumers = max(loads[worker].consumers + consumers, 0)
        loads[worker].connections = max(loads[worker].connections + connections, 0)
    }
}
