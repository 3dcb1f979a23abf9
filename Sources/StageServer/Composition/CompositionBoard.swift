import Foundation

/// The live state of every composition: the one place that changes it, and persists each change.
///
/// Three parties report here:
/// - the runner (the compositor supervisor), with `composition(_:didBecome:reason:)` and
///   `destination(_:of:didBecome:reason:)`;
/// - the control plane, with `track(_:)` after StartComposition and `requestStop(_:reason:)`
///   for StopComposition and DeleteStage;
/// - its own watch (`sweep(now:)`, every second once `startWatching()` ran), which stops a
///   composition as IVS does: `idleTimeout` after the last publisher left its stage, or that long
///   after its start when nobody published; and ends a stop the runner never confirmed.
///
/// STOPPED and FAILED are final: a late report about a finished composition changes nothing.
actor CompositionBoard {
    /// How long a composition may stay STOPPING before the board declares it STOPPED.
    static let stopConfirmationTimeout: TimeInterval = 30

    let store: Store
    let idleTimeout: TimeInterval
    /// stageId → how many participants publish on it now (from the signaling hub).
    let publisherCount: @Sendable (String) async -> Int
    private var runner: (any CompositionRunner)?
    private var watched: [String: Watch] = [:]
    private var watcher: Task<Void, Never>?

    /// What the idle watch knows of one live composition.
    struct Watch: Sendable {
        var stageId: String
        /// The last sweep that saw a publisher on the stage (the start, before any).
        var lastPublisherSeen: Date
        /// When the board asked the runner to stop it.
        var stoppingSince: Date?
    }

    init(store: Store, idleTimeout: TimeInterval, publisherCount: @escaping @Sendable (String) async -> Int) {
        self.store = store
        self.idleTimeout = idleTimeout
        self.publisherCount = publisherCount
    }

    /// The runner that stops compositions (it is made after the board, with the board).
    func attach(_ runner: any CompositionRunner) { self.runner = runner }

    /// Watches a composition that was just started.
    func track(_ record: CompositionRecord) {
        guard !record.state.isTerminal else { return }
        watched[record.id] = Watch(stageId: record.stageId, lastPublisherSeen: record.startTime)
    }

    /// The ids of the compositions being watched (tests, diagnostics).
    var watchedIds: Set<String> { Set(watched.keys) }

    // MARK: Runner reports

    /// The runner reports a composition's new state. STARTING → ACTIVE, any live state →
    /// STOPPING, STOPPED or FAILED; ACTIVE after a stop was asked for, or anything after
    /// STOPPED or FAILED, is ignored.
    func composition(_ id: String, didBecome state: CompositionState, reason: String?) async {
        let now = Date()
        let result = await update(id) { record in Self.apply(state, reason: reason, to: &record, at: now) }
        guard let result else { return }
        if result.changed {
            ServerLog.api.info("composition state", metadata: ["composition": "\(id)", "state": "\(state.rawValue)",
                                                              "reason": "\(reason ?? "")"])
        }
        if result.record.state.isTerminal { watched[id] = nil }
    }

    /// The runner reports the state of destination `index` (its place in the request's list).
    func destination(_ index: Int, of id: String, didBecome state: DestinationState, reason: String?) async {
        let now = Date()
        let result = await update(id) { record in Self.apply(state, toDestination: index, of: &record, at: now) }
        if let result, result.changed {
            ServerLog.api.info("composition destination state", metadata: [
                "composition": "\(id)", "destination": "\(index)", "state": "\(state.rawValue)", "reason": "\(reason ?? "")",
            ])
        }
    }

    static func apply(_ state: CompositionState, reason: String?, to record: inout CompositionRecord, at time: Date) -> Bool {
        guard !record.state.isTerminal, record.state != state else { return false }
        switch state {
        case .starting:
            return false
        case .active:
            guard record.state == .starting else { return false }
            record.state = .active
            record.stateReason = reason
        case .stopping:
            record.markStopping(reason: reason)
        case .stopped, .failed:
            record.finish(state, reason: reason, at: time)
        }
        return true
    }

    static func apply(_ state: DestinationState, toDestination index: Int, of record: inout CompositionRecord, at time: Date) -> Bool {
        guard !record.state.isTerminal, record.destinations.indices.contains(index) else { return false }
        var destination = record.destinations[index]
        guard !destination.state.isTerminal, destination.state != state else { return false }
        destination.state = state
        if state == .active, destination.startTime == nil { destination.startTime = time }
        if state.isTerminal { destination.endTime = time }
        record.destinations[index] = destination
        return true
    }

    // MARK: Stopping

    /// Asks for a stop: a STARTING or ACTIVE composition becomes STOPPING and the runner is told;
    /// it reports STOPPED when done. Without a runner the composition is STOPPED at once.
    /// - Returns: the composition as it is now; nil when there is none.
    @discardableResult
    func requestStop(_ id: String, reason: String) async -> CompositionRecord? {
        let result = await update(id) { record in
            guard record.state == .starting || record.state == .active else { return false }
            record.markStopping(reason: reason)
            return true
        }
        guard let result else { return nil }
        guard result.changed else { return result.record }
        ServerLog.api.info("composition stopping", metadata: ["composition": "\(id)", "reason": "\(reason)"])
        watched[id]?.stoppingSince = Date()
        guard let runner else {
            await composition(id, didBecome: .stopped, reason: reason)
            return try? await store.composition(id: id)
        }
        await runner.stop(compositionId: id)
        return try? await store.composition(id: id)
    }

    /// The server is shutting down: every live composition is asked to stop (its compositor
    /// flushes the last part and the recording ends with a VOD playlist), and this waits up to
    /// `timeout` for them to report STOPPED.
    func stopAll(reason: String, timeout: Duration) async {
        let live = (try? await store.compositions(in: [.starting, .active])) ?? []
        for record in live { await requestStop(record.id, reason: reason) }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let remaining = (try? await store.compositions(in: [.starting, .active, .stopping])) ?? []
            if remaining.isEmpty { return }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Stops every live composition of a stage (it was deleted).
    func stopCompositions(ofStage stageId: String, reason: String) async {
        let live = (try? await store.compositions(in: [.starting, .active])) ?? []
        for record in live where record.stageId == stageId {
            await requestStop(record.id, reason: reason)
        }
    }

    // MARK: Idle watch

    /// One pass of the watch at `now`: idle compositions are asked to stop, and a stop the
    /// runner has not confirmed within `stopConfirmationTimeout` ends as STOPPED.
    func sweep(now: Date = Date()) async {
        for id in watched.keys.sorted() {
            guard let watch = watched[id] else { continue }
            if let since = watch.stoppingSince {
                if now.timeIntervalSince(since) >= Self.stopConfirmationTimeout {
                    await composition(id, didBecome: .stopped,
                                      reason: "the compositor did not confirm the stop within \(Int(Self.stopConfirmationTimeout)) s")
                    watched[id] = nil
                }
                continue
            }
            let publishers = await publisherCount(watch.stageId)
            guard var current = watched[id], current.stoppingSince == nil else { continue }
            if publishers > 0 {
                current.lastPublisherSeen = now
                watched[id] = current
            } else if now.timeIntervalSince(current.lastPublisherSeen) >= idleTimeout {
                await requestStop(id, reason: "no participant published on the stage for \(Int(idleTimeout)) s")
            }
        }
    }

    /// Runs `sweep` every `interval` until `stopWatching()`.
    func startWatching(every interval: Duration = .seconds(1)) {
        guard watcher == nil else { return }
        watcher = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self else { return }
                await self.sweep()
            }
        }
    }

    func stopWatching() {
        watcher?.cancel()
        watcher = nil
    }

    private func update(_ id: String, _ change: @escaping @Sendable (inout CompositionRecord) -> Bool)
        async -> (record: CompositionRecord, changed: Bool)? {
        do {
            return try await store.updateComposition(id: id, change)
        } catch {
            ServerLog.store.error("composition update failed", metadata: ["composition": "\(id)", "error": "\(error)"])
            return nil
        }
    }
}

extension CompositionRecord {
    /// STOPPING, with every running destination.
    mutating func markStopping(reason: String?) {
        state = .stopping
        stateReason = reason
        for index in destinations.indices where !destinations[index].state.isTerminal {
            destinations[index].state = .stopping
        }
    }
}
