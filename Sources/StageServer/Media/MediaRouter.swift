import Foundation
import NIOCore
import StageProtocol
import StageCongestion
import StageSFU
import StageTransport
import StageWire
import Synchronization

/// One stage's media, on the one media worker it was placed on (mediasoup's router): the one
/// owner of the stage's publish and subscribe peer connections — SDK, WHIP, WHEP, the
/// compositor's — and so of their producers and consumers. Kick, DeleteStage, token expiry and
/// a publisher's new connection all go through it. Every method runs on its worker's event
/// loop (`MediaService` submits there).
final class MediaRouter: @unchecked Sendable {
    let stageId: String
    let worker: MediaWorker
    let hub: SignalingHub
    let options: Options
    private(set) var publishers: [String: PublisherConnection] = [:]     // participant id → connection
    private(set) var subscribers: [String: SubscriberConnection] = [:]   // resource id → connection
    private(set) var publisherResources: [String: PublisherConnection] = [:] // resource id → connection
    /// (subscriber participant id, publisher id) → resource ids of the subscriber's connections.
    private var subscriptionsBySubscriber: [String: [String]] = [:]
    /// A connection opened or closed (`Connection.change`: what it added, negative when removed).
    var onConnectionChanged: ((Connection) -> Void)?
    /// Its last connection closed.
    var onEmpty: ((MediaRouter) -> Void)?
    /// Taken out of the registry (it was empty): whoever still holds it must look again.
    var isRetired = false
    /// On a router that serves subscribers beyond what the stage's origin worker holds: its pipe
    /// from the origin router, and the copies of the publishers' producers it brings.
    var pipeFromOrigin: PipeFarEnd?
    /// On the origin router: its pipes to the stage's other routers, by far router.
    private(set) var pipesOut: [ObjectIdentifier: PipeOriginEnd] = [:]

    /// The switches every router of a server shares (`ServerConfiguration`).
    struct Options: Sendable {
        /// Consumers a media worker holds before a stage's new subscribers go to a router on
        /// another worker, piped from the first.
        var workerMaxConsumers = ServerConfiguration.defaultWorkerMaxConsumers
        /// Subscribers' layers follow their downlink estimates.
        var downlinkAdaptation = true
        /// Publishers are told which simulcast layers subscribers use.
        var dynacast = true
        /// Lost packets are asked for again and resent.
        var lossRepair = true
        /// Subscribers' video is paced at a multiple of their estimates.
        var pacing = true
    }

    init(stageId: String, worker: MediaWorker, hub: SignalingHub, options: Options) {
        self.stageId = stageId
        self.worker = worker
        self.hub = hub
        self.options = options
    }

    var engine: MediaEngine { worker.engine }
    var isEmpty: Bool { publisherResources.isEmpty && subscribers.isEmpty }

    /// A peer connection that opened or closed, and what the router gained or lost with it.
    struct Connection: Sendable, Equatable {
        var resourceId: String
        /// The participant publishing on it; nil for a subscribe connection.
        var publisherId: String?
        var change: LoadChange
    }

    /// Peer connections and consumers a router gained or lost.
    struct LoadChange: Sendable, Equatable {
        var publishers = 0
        var subscribers = 0
        var consumers = 0
    }

    /// Ids of media connections, unique across routers and distinct from signaling sockets'
    /// (which count up from 1).
    private static let mediaConnections = Atomic<UInt64>(1 << 62)

    /// A publisher's offer; replaces an earlier publish connection of the same participant once
    /// the new one connects (see `+HandOver`). The participant is announced once media connects.
    func publish(participant: ParticipantDescriptor, offer: RemoteOffer) throws -> MediaService.Answer {
        let participantId = participant.participantId, stageId = self.stageId
        guard offer.sections.contains(where: { $0.direction == .sendonly || $0.direction == .sendrecv }) else {
            throw NegotiationError("offer: a WHIP offer must send media (sendonly or sendrecv)")
        }
        let current = publishers[participantId]
        let resourceId = UUID().uuidString.lowercased()
        let peer = try MediaPeer(id: resourceId, engine: engine, dtlsRole: offer.localDTLSRole, remoteFingerprint: offer.fingerprint)
        let connection = PublisherConnection(id: resourceId, participantId: participantId, stageId: stageId, peer: peer, offer: offer,
                                             requestsRetransmission: options.lossRepair)
        let mediaConnection = Self.mediaConnections.add(1, ordering: .relaxed).newValue
        let hub = self.hub
        connection.onConnect = { [weak self] connected in
            self?.completeReplacement(by: connected)
            let streams = connected.streams
            Task { await hub.mediaStarted(stageId: stageId, participant: participant, streams: streams, mediaConnectionId: mediaConnection) }
        }
        connection.onClose = { [weak self] closed in
            guard let self else { return }
            self.publisherResources[closed.id] = nil
            self.onConnectionChanged?(Connection(resourceId: closed.id, publisherId: participantId, change: LoadChange(publishers: -1)))
            defer { self.retireIfEmpty() }
            guard self.publishers[closed.participantId] === closed else {
                // A connection being replaced (or already replaced) ends nothing on the stage.
                self.replacedConnectionClosed(closed)
                return
            }
            self.publishers[closed.participantId] = nil
            self.abandonReplacement(by: closed)
            Task { await hub.mediaStopped(stageId: stageId, participantId: participantId, mediaConnectionId: mediaConnection) }
        }
        if options.dynacast {
            connection.onPublishLayers = { streamId, rids in
                Task { await hub.publishLayers(stageId: stageId, participantId: participantId, streamId: streamId, rids: rids) }
            }
        }
        publishers[participantId] = connection
        publisherResources[resourceId] = connection
        onConnectionChanged?(Connection(resourceId: resourceId, publisherId: participantId, change: LoadChange(publishers: 1)))
        if let current { connection.replacing = replacement(of: current, by: connection) }
        engine.register(peer)
        let answer = AnswerBuilder(offer: offer, credentials: peer.credentials, fingerprint: engine.dtlsContext.certificate.sdpFingerprint,
                                   candidates: worker.candidates).answer()
        return MediaService.Answer(resourceId: resourceId, sdp: answer)
    }

    /// A subscriber's offer for one publisher's tracks.
    /// - Parameter layer: the simulcast layer wanted, by rid (nil: the highest available).
    /// - Parameter subscriberId: the participant subscribing through signaling (for `preferLayer`).
    /// - Parameter ownerId: the participant whose token asked (WHEP); the signaling subscriber otherwise.
    func subscribe(to publisherId: String, offer: RemoteOffer, layer: String?, subscriberId: String?, ownerId: String?) throws
        -> MediaService.Answer {
        let publisher = publishers[publisherId]
        let copies = pipeFromOrigin?.producers(of: publisherId) ?? []
        guard publisher != nil || !copies.isEmpty else { throw MediaService.SubscribeFailure.publisherNotFound }
        let producer = { (kind: MediaKind) in publisher?.producer(kind: kind) ?? copies.first { $0.kind == kind } }
        let resourceId = UUID().uuidString.lowercased()
        let peer = try MediaPeer(id: resourceId, engine: engine, dtlsRole: offer.localDTLSRole, remoteFingerprint: offer.fingerprint)
        // One transport-wide numbering for everything it is sent, if it reports arrivals.
        let sendHistory = offer.sections.contains { Self.transportWideID(of: $0) != nil }
            ? TransportSendHistory(firstSequence: .random(in: .min ... .max)) : nil
        let connection = SubscriberConnection(id: resourceId, ownerId: ownerId ?? subscriberId ?? "", stageId: stageId, peer: peer,
                                              adaptsToDownlink: options.downlinkAdaptation, answersNACKs: options.lossRepair,
                                              paced: options.pacing, sendHistory: sendHistory)
        var outgoing: [String: AnswerBuilder.OutgoingTrack] = [:]
        for section in offer.sections where section.direction == .recvonly || section.direction == .sendrecv {
            guard let producer = producer(section.kind) else { continue }
            let ssrc = UInt32.random(in: 0x1000...UInt32.max)
            let forwarded = MediaMetrics.shared.forwarded(producer.kind)
            let writer = ForwardedPacketWriter(absSendTimeID: section.extensions[RTPExtensionURI.absSendTime].map { UInt8($0) },
                                               transportWide: sendHistory.flatMap { history in
                                                   Self.transportWideID(of: section).map { (id: $0, history: history) }
                                               })
            let output = ConsumerOutput(peer: peer, writer: writer, pacer: connection.pacer,
                                        traffic: producer.kind == .video ? .video : .audio, forwarded: forwarded)
            let consumer = Consumer(id: "\(resourceId):\(section.mid)", producer: producer, outgoingSSRC: ssrc,
                                    payloadType: section.codec.payloadType, transport: output)
            if let layer, let index = producer.layers.firstIndex(of: layer) { consumer.setPreferredLayer(index) }
            var retransmissionSSRC: UInt32?
            if producer.kind == .video, let payloadType = section.retransmissionPayloadType {
                let rtx = UInt32.random(in: 0x1000...UInt32.max)
                consumer.enableRetransmission(.init(ssrc: rtx, payloadType: payloadType))
                retransmissionSSRC = rtx
            }
            connection.add(consumer)
            outgoing[section.mid] = .init(ssrc: ssrc, streamID: publisherId, trackID: "\(publisherId)-\(section.kind.rawValue)",
                                          retransmissionSSRC: retransmissionSSRC)
        }
        if let subscriberId {
            let hub = self.hub, stageId = self.stageId
            connection.adaptation?.onEstimateChanged = { bitsPerSecond in
                Task { await hub.downlinkEstimate(stageId: stageId, subscriberId: subscriberId, publisherId: publisherId, bitsPerSecond: bitsPerSecond) }
            }
        }
        let key = subscriberId.map { "\($0)|\(publisherId)" }
        let consumers = connection.consumers.count
        connection.onClose = { [weak self] closed in
            guard let self else { return }
            self.subscribers[closed.id] = nil
            if let key { self.subscriptionsBySubscriber[key]?.removeAll { $0 == closed.id } }
            self.onConnectionChanged?(Connection(resourceId: closed.id, change: LoadChange(subscribers: -1, consumers: -consumers)))
            self.retireIfEmpty()
        }
        subscribers[resourceId] = connection
        if let key { subscriptionsBySubscriber[key, default: []].append(resourceId) }
        onConnectionChanged?(Connection(resourceId: resourceId, change: LoadChange(subscribers: 1, consumers: consumers)))
        engine.register(peer)
        let answer = AnswerBuilder(offer: offer, credentials: peer.credentials, fingerprint: engine.dtlsContext.certificate.sdpFingerprint,
                                   candidates: worker.candidates).answer(outgoing: outgoing)
        return MediaService.Answer(resourceId: resourceId, sdp: answer)
    }

    /// The transport-cc extension ID to write on what a subscriber's section receives (one-byte form, 1…14).
    private static func transportWideID(of section: RemoteOffer.Section) -> UInt8? {
        guard section.direction == .recvonly || section.direction == .sendrecv,
              let id = section.extensions[RTPExtensionURI.transportWideCC], (1...14).contains(id) else { return nil }
        return UInt8(id)
    }

    /// Ends every peer connection of `participantId` (nil: everyone) with a DTLS close_notify —
    /// its publish connections (whose subscribers then see the publisher leave) and the
    /// subscribe connections it owns. Returns whether there was anything to end.
    func end(participantId: String?, reason: String) -> Bool {
        let peers = publisherResources.values.filter { participantId == nil || $0.participantId == participantId }.map(\.peer)
            + subscribers.values.filter { participantId == nil || $0.ownerId == participantId }.map(\.peer)
        for peer in peers { peer.close(reason: reason) }
        return !peers.isEmpty
    }

    /// The participant a WHIP or WHEP resource belongs to.
    func owner(resourceId: String) -> String? {
        publisherResources[resourceId]?.participantId ?? subscribers[resourceId]?.ownerId
    }

    /// DELETE on a WHIP or WHEP resource; false when there is no such resource.
    func close(resourceId: String) -> Bool {
        guard let peer = publisherResources[resourceId]?.peer ?? subscribers[resourceId]?.peer else { return false }
        peer.close(reason: "DELETE")
        return true
    }

    /// Changes the simulcast layer a subscriber receives; the switch happens at a keyframe.
    func setLayer(resourceId: String, rid: String?) throws {
        guard let connection = subscribers[resourceId] else { throw MediaService.LayerFailure.noSuchResource }
        for consumer in connection.consumers.values {
            guard let layers = consumer.producer?.layers, !layers.isEmpty else { continue }
            guard let rid else {
                consumer.setPreferredLayer(nil)
                continue
            }
            guard let index = layers.firstIndex(of: rid) else { throw MediaService.LayerFailure.noSuchLayer(layers) }
            consumer.setPreferredLayer(index)
        }
    }

    /// The subscribe connections a participant has to a publisher (signaling `preferLayer`).
    func subscriptions(subscriberId: String, publisherId: String) -> [String] {
        subscriptionsBySubscriber["\(subscriberId)|\(publisherId)"] ?? []
    }

    /// Adds what its stream allocators chose now to `snapshot` (`/metrics`).
    func addAllocations(to snapshot: inout AllocationGauges.Snapshot) {
        for connection in subscribers.values {
            for consumer in connection.consumers.values where consumer.isAllocated {
                if let selector = consumer.selector { snapshot.layers.append(consumer.isPaused ? nil : selector.current) }
                snapshot.temporalLayers.append(consumer.temporalLayer)
            }
            if let estimate = connection.adaptation?.reportedEstimate { snapshot.estimates.append(estimate) }
        }
    }

    /// Signaling `mute` from a media publisher: stop or resume forwarding that stream (here, or
    /// its copies piped here).
    func setMuted(participantId: String, streamId: String, muted: Bool) {
        // A connection still being replaced forwards until its successor connects: it too.
        publishers[participantId]?.replacing?.setMuted(streamId: streamId, muted: muted)
        publishers[participantId]?.setMuted(streamId: streamId, muted: muted)
        pipeFromOrigin?.setMuted(publisherId: participantId, streamId: streamId, muted: muted)
    }

    // MARK: Pipes (on the origin router)

    /// What its pipes did, for `/metrics` (`PipeGauges`).
    func addPipeActivity(to activity: inout PipeGauges.Activity) {
        for end in pipesOut.values {
            activity.pipes += 1
            activity.packetsSent += end.transport.packetsSent
            activity.nacked += end.nacked
            activity.resent += end.resent
            activity.keyframeRequests += end.keyframeRequests
            if let delay = end.delay.oneWaySeconds { activity.delays.append(delay) }
        }
        if let pipeFromOrigin { activity.packetsReceived += pipeFromOrigin.transport.packetsReceived }
    }

    /// Opens a pipe to `far` on this router's side (`PipeOriginEnd`); one per far router.
    func addPipe(_ end: PipeOriginEnd, to far: MediaRouter) {
        pipesOut[ObjectIdentifier(far)] = end
    }

    /// The pipe to `far`, if any.
    func pipe(to far: MediaRouter) -> PipeOriginEnd? { pipesOut[ObjectIdentifier(far)] }

    /// Closes the pipe to `far` (it retired).
    func removePipe(to far: MediaRouter) -> PipeOriginEnd? { pipesOut.removeValue(forKey: ObjectIdentifier(far)) }

    /// The producers of `publisherId` not yet in the pipe `end`, described for its far end.
    func unpiped(publisherId: String, in end: PipeOriginEnd) -> [PipeOriginEnd.Description] {
        guard let publisher = publishers[publisherId] else { return [] }
        return publisher.producers.values.filter { !end.pipes($0) }.map { end.describe($0, streamId: publisher.streamId(of: $0)) }
    }

    /// Tells `onEmpty` when it holds no connection (after its last closed, or an offer refused).
    func retireIfEmpty() {
        if isEmpty, !isRetired { onEmpty?(self) }
    }
}
