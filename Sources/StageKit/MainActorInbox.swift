import Synchronization

/// Hands work from the signaling sockets to the main actor in batches: one main-actor job runs
/// everything posted since the previous one, in the order it was posted. A process with many
/// stages (the signaling benchmark runs 512) receives a fan-out as hundreds of messages at
/// once; each would otherwise cost its own wake-up of the main thread.
final class MainActorInbox: Sendable {
    typealias Job = @MainActor @Sendable () -> Void

    static let shared = MainActorInbox()

    private struct State {
        var jobs: [Job] = []
        var drainScheduled = false
    }
    private let state = Mutex(State())

    func post(_ job: @escaping Job) {
        let schedule = state.withLock { state in
            state.jobs.append(job)
            guard !state.drainScheduled else { return false }
            state.drainScheduled = true
            return true
        }
        if schedule { Task { @MainActor in self.drain() } }
    }

    /// Runs one batch; what arrives meanwhile waits for a new main-actor job, so other main-actor
    /// work interleaves with a long burst.
    @MainActor private func drain() {
        let jobs = state.withLock { state in
            let jobs = state.jobs
            state.jobs.removeAll(keepingCapacity: true)
            return jobs
        }
        for job in jobs { job() }
        let more = state.withLock { state in
            if state.jobs.isEmpty { state.drainScheduled = false }
            return !state.jobs.isEmpty
        }
        if more { Task { @MainActor in self.drain() } }
    }
}
