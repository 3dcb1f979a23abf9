import Foundation
import Logging
import NIOCore
import StageProtocol
import StageTransport
import Synchronization

/// Every stage's media routers (`MediaRouter`), on the media workers. A stage's first router,
/// its origin, is made on the least loaded worker (`WorkerPlacement`) when its first connection
/// opens; its publishers publish there. Its subscribers subscribe there too until that worker
/// holds `workerMaxConsumers`; then on a router of the stage on another worker, to which each
/// publisher they want is piped from the origin (`StagePipes`). A router retires with its last
/// connection, so a stage that comes back may land elsewhere. WHIP, WHEP and signaling reach
/// the routers here; each does the work on its worker's event loop.
final class MediaService: Sendable {
    let workers: [MediaWorker]
    let hub: SignalingHub
    let options: MediaRouter.Options
    let registry: Mutex<Registry>
    let log = Logger(label: "proscenium.media")
    /// Pipe set-ups in progress, by far router: each waits for the one before it.
    let pipeSetups = Mutex<[ObjectIdentifier: Task<Void, any Error>]>([:])

    /// One stage's routers.
    struct StageRouters {
        var origin: MediaRouter
        /// The others, by worker index.
        var far: [Int: MediaRouter] = [:]
        var all: [MediaRouter] { [origin] + far.values }
    }

    struct Registry {
        var stages: [String: StageRouters] = [:]         // stage id → routers
        var routerOfResource: [String: MediaRouter] = [:]
        /// Open publish connections per publishing participant, and its stage.
        var publishing: [String: (stageId: String, connections: Int)] = [:]
        var placement: WorkerPlacement
        var totals = MediaRouter.LoadChange()
    }

    init(workers: [MediaWorker], hub: SignalingHub, options: MediaRouter.Options = .init()) {
        precondition(!workers.isEmpty, "at least one media worker")
        self.workers = workers
        self.hub = hub
        self.options = options
        registry = Mutex(Registry(placement: WorkerPlacement(workers: workers.count)))
    }

    struct Answer: Sendable {
        var resourceId: String
        var sdp: String
    }

    enum SubscribeFailure: Error { case publisherNotFound, wrongStage }
    enum LayerFailure: Error { case noSuchResource, noSuchLayer([String]) }

    /// WHIP or a signaling `sdpOffer`: a publisher's offer, on the stage's origin router
    /// (`MediaRouter.publish`).
    func publish(participant: ParticipantDescriptor, stageId: String, offer: RemoteOffer) async throws -> Answer {
        for _ in 0..<Self.attempts {
            if let answer = try await on(origin(of: stageId), retiring: true, { try $0.publish(participant: participant, offer: offer) }) {
                return answer
            }
        }
        throw NegotiationError("the stage's media router closed while the offer was answered: offer again")
    }

    /// How often an offer is tried on a router that retires before it is answered.
    static let attempts = 3

    /// WHEP: a subscriber's offer for one publisher's tracks (`MediaRouter.subscribe`), on the
    /// origin router, or on another worker's once the origin's holds `workerMaxConsumers`.
    func subscribe(to publisherId: String, stageId: String, offer: RemoteOffer, layer: String? = nil,
                   subscriberId: String? = nil, ownerId: String? = nil) async throws -> Answer {
        switch registry.withLock({ $0.publishing[publisherId]?.stageId }) {
        case nil: throw SubscribeFailure.publisherNotFound
        case stageId?: break
        case _?: throw SubscribeFailure.wrongStage
        }
        for _ in 0..<Self.attempts {
            guard let (origin, far) = subscribeRouter(stageId: stageId) else { throw SubscribeFailure.publisherNotFound }
            if let far { try await pipe(publisherId, from: origin, to: far) }
            let answer = try await on(far ?? origin, retiring: true) {
                try $0.subscribe(to: publisherId, offer: offer, layer: layer, subscriberId: subscriberId, ownerId: ownerId)
            }
            if let answer { return answer }
        }
        throw SubscribeFailure.publisherNotFound
    }

    /// Media follows authorization: every peer connection of `participantId` on the stage (or of
    /// everyone on it, when nil) ends now with a DTLS close_notify, on every router of the
    /// stage (`MediaRouter.end`).
    /// - Returns: whether there was anything to end.
    @discardableResult
    func end(stageId: String, participantId: String?, reason: String) async -> Bool {
        var ended = false
        for router in routers(of: stageId) {
            if (try? await on(router) { $0.end(participantId: participantId, reason: reason) }) == true { ended = true }
        }
        return ended
    }

    /// The participant a WHIP or WHEP resource belongs to; nil when there is no such resource.
    func owner(resourceId: String) async -> String? {
        guard let router = router(ofResource: resourceId) else { return nil }
        return (try? await on(router) { $0.owner(resourceId: resourceId) }) ?? nil
    }

    /// DELETE on a WHIP or WHEP resource; false when there is no such resource.
    func close(resourceId: String) async -> Bool {
        guard let router = router(ofResource: resourceId) else { return false }
        return (try? await on(router) { $0.close(resourceId: resourceId) }) ?? false
    }

    /// Changes the simulcast layer a subscriber receives; the switch happens at a keyframe.
    func setLayer(resourceId: String, rid: String?) async throws {
        guard let router = router(ofResource: resourceId),
              try await on(router, { try $0.setLayer(resourceId: resourceId, rid: rid) }) != nil
        else { throw LayerFailure.noSuchResource }
    }

    /// Signaling `preferLayer`: the layer a participant receives from a publisher on its stage.
    /// - Returns: false when it has no subscribe connection to that publisher.
    func preferLayer(stageId: String, subscriberId: String, publisherId: String, rid: String?) async throws -> Bool {
        var resources: [String] = []
        for router in routers(of: stageId) {
            resources += try await on(router) { $0.subscriptions(subscriberId: subscriberId, publisherId: publisherId) } ?? []
        }
        for resource in resources { try await setLayer(resourceId: resource, rid: rid) }
        return !resources.isEmpty
    }

    /// Signaling `mute` from a media publisher: stop or resume forwarding that stream, on every
    /// router of the stage.
    func setMuted(stageId: String, participantId: String, streamId: String, muted: Bool) async {
        for router in routers(of: stageId) {
            _ = try? await on(router) { $0.setMuted(participantId: participantId, streamId: streamId, muted: muted) }
        }
    }

    /// The stream allocators' choices now, for `/metrics`: each router's, on its worker's loop.
    func allocationSnapshot() async -> AllocationGauges.Snapshot {
        var snapshot = AllocationGauges.Snapshot()
        let routers = registry.withLock { $0.stages.values.flatMap(\.all) }
        for router in routers {
            guard let part = try? await on(router, { router -> AllocationGauges.Snapshot in
                var part = AllocationGauges.Snapshot()
                router.addAllocations(to: &part)
                return part
            }) else { continue }
            snapshot.layers += part.layers
            snapshot.temporalLayers += part.temporalLayers
            snapshot.estimates += part.estimates
        }
        return snapshot
    }

    /// What the open pipes did, for `/metrics`.
    func pipeActivity() async -> PipeGauges.Activity {
        var activity = PipeGauges.Activity()
        for router in registry.withLock({ $0.stages.values.flatMap(\.all) }) {
            guard let part = try? await on(router, { router -> PipeGauges.Activity in
                var part = PipeGauges.Activity()
                router.addPipeActivity(to: &part)
                return part
            }) else { continue }
            activity.add(part)
        }
        return activity
    }

    /// Each worker's routers and load now, for `/metrics`.
    func workerLoads() -> [(routers: Int, load: WorkerPlacement.Load)] {
        registry.withLock { registry in
            var routers = Array(repeating: 0, count: workers.count)
            for router in registry.stages.values.flatMap(\.all) { routers[router.worker.index] += 1 }
            return workers.indices.map { (routers[$0], registry.placement.loads[$0]) }
        }
    }

    // MARK: Routers

    /// Runs `body` on `router`'s loop; nil when it retired before that (look it up again). With
    /// `retiring` (an offer's answer), a router left empty (the offer refused) retires then;
    /// nothing else retires one that is empty (a far router being piped to has no connection
    /// until its subscriber's offer is answered, and a scrape of /metrics must not close it).
    func on<Result: Sendable>(_ router: MediaRouter, retiring: Bool = false, _ body: @escaping @Sendable (MediaRouter) throws -> Result)
        async throws -> Result? {
        try await router.worker.eventLoop.submit {
            guard !router.isRetired else { return Result?.none }
            defer { if retiring { router.retireIfEmpty() } }
            return .some(try body(router))
        }.get()
    }

    private func routers(of stageId: String) -> [MediaRouter] {
        registry.withLock { $0.stages[stageId]?.all ?? [] }
    }

    private func router(ofResource resourceId: String) -> MediaRouter? {
        registry.withLock { $0.routerOfResource[resourceId] }
    }

    /// The stage's origin router, made on the least loaded worker when there is none.
    private func origin(of stageId: String) -> MediaRouter {
        let (router, created) = registry.withLock { registry -> (MediaRouter, Bool) in
            if let routers = registry.stages[stageId] { return (routers.origin, false) }
            let router = makeRouter(stageId: stageId, on: workers[registry.placement.choose()])
            registry.stages[stageId] = StageRouters(origin: router)
            return (router, true)
        }
        if created { logPlaced(router, role: "origin") }
        return router
    }

    /// Where a new subscriber of the stage goes: the origin (far nil) while its worker holds
    /// fewer than `workerMaxConsumers`, else the stage's router on the least loaded other
    /// worker (made when there is none) with the origin it pipes from. Nil: no router publishes.
    private func subscribeRouter(stageId: String) -> (origin: MediaRouter, far: MediaRouter?)? {
        let (choice, created) = registry.withLock { registry -> ((MediaRouter, MediaRouter?)?, Bool) in
            guard var routers = registry.stages[stageId] else { return (nil, false) }
            let originWorker = routers.origin.worker.index
            let loads = registry.placement.loads
            guard workers.count > 1, loads[originWorker].consumers >= options.workerMaxConsumers else { return ((routers.origin, nil), false) }
            let others = loads.indices.filter { $0 != originWorker }
            let roomy = others.filter { loads[$0].consumers < options.workerMaxConsumers }
            guard let index = (roomy.isEmpty ? others : roomy).min(by: { loads[$0] < loads[$1] }) else { return ((routers.origin, nil), false) }
            if let far = routers.far[index] { return ((routers.origin, far), false) }
            let far = makeRouter(stageId: stageId, on: workers[index])
            routers.far[index] = far
            registry.stages[stageId] = routers
            return ((routers.origin, far), true)
        }
        if created, let far = choice?.1 { logPlaced(far, role: "piped from worker \(choice!.0.worker.index)") }
        return choice
    }

    private func makeRouter(stageId: String, on worker: MediaWorker) -> MediaRouter {
        let router = MediaRouter(stageId: stageId, worker: worker, hub: hub, options: options)
        router.onConnectionChanged = { [weak self] connection in self?.connectionChanged(connection, on: router) }
        router.onEmpty = { [weak self] router in self?.retire(router) }
        return router
    }

    private func logPlaced(_ router: MediaRouter, role: String) {
        log.info("stage placed", metadata: ["stage": "\(router.stageId)", "worker": "\(router.worker.index)",
                                            "udp_port": "\(router.worker.candidates.udpPort)", "router": "\(role)"])
    }

    /// On the router's loop: a connection opened or closed.
    private func connectionChanged(_ connection: MediaRouter.Connection, on router: MediaRouter) {
        let totals = registry.withLock { registry -> MediaRouter.LoadChange in
            let change = connection.change
            let opened = change.publishers + change.subscribers > 0
            registry.routerOfResource[connection.resourceId] = opened ? router : nil
            if let publisherId = connection.publisherId {
                let open = (registry.publishing[publisherId]?.connections ?? 0) + change.publishers
                registry.publishing[publisherId] = open > 0 ? (router.stageId, open) : nil
            }
            registry.placement.change(worker: router.worker.index, consumers: change.consumers,
                                      connections: change.publishers + change.subscribers)
            registry.totals.publishers += change.publishers
            registry.totals.subscribers += change.subscribers
            registry.totals.consumers += change.consumers
            return registry.totals
        }
        ServerMetrics.mediaSessions(publishers: totals.publishers)
        ServerMetrics.mediaSessions(subscribers: totals.subscribers, consumers: totals.consumers)
    }

    /// On the router's loop: its last connection closed. It leaves the registry unless another
    /// took its place; an origin takes its stage's other routers out with it (they pipe from
    /// it, and close as their subscribers do), a far router's pipe closes.
    private func retire(_ router: MediaRouter) {
        let origin = registry.withLock { registry -> MediaRouter? in
            guard var routers = registry.stages[router.stageId] else { return nil }
            if routers.origin === router {
                registry.stages[router.stageId] = nil
                router.isRetired = true
                return nil
            }
            guard let index = routers.far.first(where: { $0.value === router })?.key else { return nil }
            routers.far[index] = nil
            registry.stages[router.stageId] = routers
            router.isRetired = true
            return routers.origin
        }
        guard let far = router.pipeFromOrigin else { return }
        router.pipeFromOrigin = nil
        Task { await closePipe(far, from: origin, to: router) }
    }
}
