import Foundation
import Logging
import NIOCore
import StageProtocol
import StageTransport
import Synchronization

/// Every stage's media router (`MediaRouter`), on the media workers: a stage's router is made on
/// the least loaded worker (`WorkerPlacement`) when its first connection opens, and retired with
/// its last, so a stage that comes back may land elsewhere. WHIP, WHEP and signaling reach a
/// router here; the router does the work on its worker's event loop.
final class MediaService: Sendable {
    let workers: [MediaWorker]
    let hub: SignalingHub
    let options: MediaRouter.Options
    private let registry: Mutex<Registry>
    private let log = Logger(label: "proscenium.media")

    private struct Registry {
        var routers: [String: MediaRouter] = [:]          // stage id → router
        var stageOfResource: [String: String] = [:]       // resource id → stage id
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

    /// WHIP or a signaling `sdpOffer`: a publisher's offer (`MediaRouter.publish`).
    func publish(participant: ParticipantDescriptor, stageId: String, offer: RemoteOffer) async throws -> Answer {
        try await withRouter(stageId: stageId) { try $0.publish(participant: participant, offer: offer) }
    }

    /// WHEP: a subscriber's offer for one publisher's tracks (`MediaRouter.subscribe`).
    func subscribe(to publisherId: String, stageId: String, offer: RemoteOffer, layer: String? = nil,
                   subscriberId: String? = nil, ownerId: String? = nil) async throws -> Answer {
        switch registry.withLock({ $0.publishing[publisherId]?.stageId }) {
        case nil: throw SubscribeFailure.publisherNotFound
        case stageId?: break
        case _?: throw SubscribeFailure.wrongStage
        }
        guard let answer = try await withRouter(stageId: stageId, creating: false, {
            try $0.subscribe(to: publisherId, offer: offer, layer: layer, subscriberId: subscriberId, ownerId: ownerId)
        }) else { throw SubscribeFailure.publisherNotFound }
        return answer
    }

    /// Media follows authorization: every peer connection of `participantId` on the stage (or of
    /// everyone on it, when nil) ends now with a DTLS close_notify (`MediaRouter.end`).
    /// - Returns: whether there was anything to end.
    @discardableResult
    func end(stageId: String, participantId: String?, reason: String) async -> Bool {
        (try? await withRouter(stageId: stageId, creating: false) { $0.end(participantId: participantId, reason: reason) }) ?? false
    }

    /// The participant a WHIP or WHEP resource belongs to; nil when there is no such resource.
    func owner(resourceId: String) async -> String? {
        guard let stageId = stage(ofResource: resourceId) else { return nil }
        return (try? await withRouter(stageId: stageId, creating: false) { $0.owner(resourceId: resourceId) }) ?? nil
    }

    /// DELETE on a WHIP or WHEP resource; false when there is no such resource.
    func close(resourceId: String) async -> Bool {
        guard let stageId = stage(ofResource: resourceId) else { return false }
        return (try? await withRouter(stageId: stageId, creating: false) { $0.close(resourceId: resourceId) }) ?? false
    }

    /// Changes the simulcast layer a subscriber receives; the switch happens at a keyframe.
    func setLayer(resourceId: String, rid: String?) async throws {
        guard let stageId = stage(ofResource: resourceId),
              try await withRouter(stageId: stageId, creating: false, { try $0.setLayer(resourceId: resourceId, rid: rid) }) != nil
        else { throw LayerFailure.noSuchResource }
    }

    /// Signaling `preferLayer`: the layer a participant receives from a publisher on its stage.
    /// - Returns: false when it has no subscribe connection to that publisher.
    func preferLayer(stageId: String, subscriberId: String, publisherId: String, rid: String?) async throws -> Bool {
        let resources = try await withRouter(stageId: stageId, creating: false) {
            $0.subscriptions(subscriberId: subscriberId, publisherId: publisherId)
        } ?? []
        for resource in resources { try await setLayer(resourceId: resource, rid: rid) }
        return !resources.isEmpty
    }

    /// Signaling `mute` from a media publisher: stop or resume forwarding that stream.
    func setMuted(stageId: String, participantId: String, streamId: String, muted: Bool) async {
        _ = try? await withRouter(stageId: stageId, creating: false) { $0.setMuted(participantId: participantId, streamId: streamId, muted: muted) }
    }

    /// The stream allocators' choices now, for `/metrics`: each router's, on its worker's loop.
    func allocationSnapshot() async -> AllocationGauges.Snapshot {
        var snapshot = AllocationGauges.Snapshot()
        for (stageId, _) in registry.withLock({ $0.routers }) {
            if let part = try? await withRouter(stageId: stageId, creating: false, { router -> AllocationGauges.Snapshot in
                var part = AllocationGauges.Snapshot()
                router.addAllocations(to: &part)
                return part
            }) {
                snapshot.layers += part.layers
                snapshot.temporalLayers += part.temporalLayers
                snapshot.estimates += part.estimates
            }
        }
        return snapshot
    }

    /// Each worker's routers and load now, for `/metrics`.
    func workerLoads() -> [(routers: Int, load: WorkerPlacement.Load)] {
        registry.withLock { registry in
            var routers = Array(repeating: 0, count: workers.count)
            for router in registry.routers.values { routers[router.worker.index] += 1 }
            return workers.indices.map { (routers[$0], registry.placement.loads[$0]) }
        }
    }

    private func stage(ofResource resourceId: String) -> String? {
        registry.withLock { $0.stageOfResource[resourceId] }
    }

    /// Runs `body` on the stage's router, on its worker's loop: the router is made first when
    /// there is none and `creating` (nil is returned when there is none and not `creating`). A
    /// router retired between the lookup and the loop running `body` is looked up again.
    private func withRouter<Result: Sendable>(stageId: String, creating: Bool = true,
                                              _ body: @escaping @Sendable (MediaRouter) throws -> Result) async throws -> Result? {
        while true {
            guard let router = router(stageId: stageId, creating: creating) else { return nil }
            let outcome: Result?? = try await router.worker.eventLoop.submit {
                guard !router.isRetired else { return .none }
                defer { router.retireIfEmpty() }
                return .some(try body(router))
            }.get()
            if let outcome { return outcome }
        }
    }

    private func withRouter<Result: Sendable>(stageId: String, _ body: @escaping @Sendable (MediaRouter) throws -> Result) async throws -> Result {
        // A router is always made here, so there is one to run on.
        try await withRouter(stageId: stageId, creating: true, body)!
    }

    private func router(stageId: String, creating: Bool) -> MediaRouter? {
        let (router, created) = registry.withLock { registry -> (MediaRouter?, Bool) in
            if let router = registry.routers[stageId] { return (router, false) }
            guard creating else { return (nil, false) }
            let worker = workers[registry.placement.choose()]
            let router = MediaRouter(stageId: stageId, worker: worker, hub: hub, options: options)
            router.onConnectionChanged = { [weak self] connection in self?.connectionChanged(connection, on: router) }
            router.onEmpty = { [weak self] router in self?.retire(router) }
            registry.routers[stageId] = router
            return (router, true)
        }
        if created, let router {
            log.info("stage placed", metadata: ["stage": "\(stageId)", "worker": "\(router.worker.index)",
                                                "udp_port": "\(router.worker.candidates.udpPort)"])
        }
        return router
    }

    /// On the router's loop: a connection opened or closed.
    private func connectionChanged(_ connection: MediaRouter.Connection, on router: MediaRouter) {
        let totals = registry.withLock { registry -> MediaRouter.LoadChange in
            let change = connection.change
            let opened = change.publishers + change.subscribers > 0
            registry.stageOfResource[connection.resourceId] = opened ? router.stageId : nil
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

    /// On the router's loop: its last connection closed. It leaves the registry unless
    /// another took its place.
    private func retire(_ router: MediaRouter) {
        registry.withLock { registry in
            guard registry.routers[router.stageId] === router else { return }
            registry.routers[router.stageId] = nil
            router.isRetired = true
        }
    }
}
