import Foundation
import NIOCore
import StageProtocol
import StageCongestion
import StageSFU
import StageTransport
import StageWire

/// Publish and subscribe peer connections of every stage, on the media engine's event loop:
/// WHIP creates publishers, WHEP creates subscribers that consume a publisher's producers.
final class MediaService: @unchecked Sendable {
    let engine: MediaEngine
    /// The host candidates every answer lists.
    let candidates: HostCandidates
    let hub: SignalingHub
    private(set) var publishers: [String: PublisherConnection] = [:]     // participant id → connection
    private var subscribers: [String: SubscriberConnection] = [:] {       // resource id → connection
        didSet { ServerMetrics.mediaSessions(subscribers: subscribers.count, consumers: subscribers.values.reduce(0) { $0 + $1.consumers.count }) }
    }
    private var publisherResources: [String: PublisherConnection] = [:] { // resource id → connection
        didSet { ServerMetrics.mediaSessions(publishers: publisherResources.count) }
    }
    /// (subscriber participant id, publisher id) → resource ids of the subscriber's connections.
    private var subscriptionsBySubscriber: [String: [String]] = [:]

    /// Whether subscribers' layers follow their downlink estimates (`ServerConfiguration.downlinkAdaptation`).
    let downlinkAdaptation: Bool

    /// Whether publishers are told which simulcast layers subscribers use (`ServerConfiguration.dynacast`).
    let dynacast: Bool

    /// Whether lost packets are asked for again and resent (`ServerConfiguration.lossRepair`).
    let lossRepair: Bool

    /// Whether subscribers' video is paced at a multiple of their estimates (`ServerConfiguration.pacing`).
    let pacing: Bool

    init(engine: MediaEngine, candidates: HostCandidates, hub: SignalingHub, downlinkAdaptation: Bool = true, dynacast: Bool = true,
         lossRepair: Bool = true, pacing: Bool = true) {
        self.downlinkAdaptation = downlinkAdaptation
        self.pacing = pacing
        self.dynacast = dynacast
        self.lossRepair = lossRepair
        self.engine = engine
        self.candidates = candidates
        self.hub = hub
    }

    /// Ids of media connections, distinct from signaling sockets' (which count up from 1).
    private var nextMediaConnection: UInt64 = 1 << 62

    struct Answer: Sendable {
        var resourceId: String
        var sdp: String
    }

    /// WHIP or a signaling `sdpOffer`: a publisher's offer; replaces an earlier publish connection
    /// of the same participant once the new one connects (see `+HandOver`). The participant is
    /// announced once media connects.
    func publish(participant: ParticipantDescriptor, stageId: String, offer: RemoteOffer) async throws -> Answer {
        let participantId = participant.participantId
        return try await engine.eventLoop.submit { [self] in
            guard offer.sections.contains(where: { $0.direction == .sendonly || $0.direction == .sendrecv }) else {
                throw NegotiationError("offer: a WHIP offer must send media (sendonly or sendrecv)")
            }
            let current = publishers[participantId]
            let resourceId = UUID().uuidString.lowercased()
            let peer = try MediaPeer(id: resourceId, engine: engine, dtlsRole: offer.localDTLSRole, remoteFingerprint: offer.fingerprint)
            let connection = PublisherConnection(id: resourceId, participantId: participantId, stageId: stageId, peer: peer, offer: offer,
                                              requestsRetransmission: lossRepair)
            nextMediaConnection += 1
            let mediaConnection = nextMediaConnection
            let hub = self.hub
            connection.onConnect = { [weak self] connected in
                self?.completeReplacement(by: connected)
                let streams = connected.streams
                Task { await hub.mediaStarted(stageId: stageId, participant: participant, streams: streams, mediaConnectionId: mediaConnection) }
            }
            connection.onClose = { [weak self] closed in
                guard let self else { return }
                self.publisherResources[closed.id] = nil
                guard self.publishers[closed.participantId] === closed else {
                    // A connection being replaced (or already replaced) ends nothing on the stage.
                    self.replacedConnectionClosed(closed)
                    return
                }
                self.publishers[closed.participantId] = nil
                self.abandonReplacement(by: closed)
                Task { await hub.mediaStopped(stageId: stageId, participantId: participantId, mediaConnectionId: mediaConnection) }
            }
            if dynacast {
                connection.onPublishLayers = { streamId, rids in
                    Task { await hub.publishLayers(stageId: stageId, participantId: participantId, streamId: streamId, rids: rids) }
                }
            }
            publishers[participantId] = connection
            publisherResources[resourceId] = connection
            if let current { connection.replacing = replacement(of: current, by: connection) }
            engine.register(peer)
            let answer = AnswerBuilder(offer: offer, credentials: peer.credentials, fingerprint: engine.dtlsContext.certificate.sdpFingerprint,
                                       candidates: candidates).answer()
            return Answer(resourceId: resourceId, sdp: answer)
        }.get()
    }

    enum SubscribeFailure: Error { case publisherNotFound, wrongStage }

    /// WHEP: a subscriber's offer for one publisher's tracks.
    /// - Parameter layer: the simulcast layer wanted, by rid (nil: the highest available).
    /// - Parameter subscriberId: the participant subscribing through signaling (for `preferLayer`).
    /// - Parameter ownerId: the participant whose token asked (WHEP); the signaling subscriber otherwise.
    func subscribe(to publisherId: String, stageId: String, offer: RemoteOffer, layer: String? = nil,
                   subscriberId: String? = nil, ownerId: String? = nil) async throws -> Answer {
        try await engine.eventLoop.submit { [self] in
            guard let publisher = publishers[publisherId] else { throw SubscribeFailure.publisherNotFound }
            guard publisher.stageId == stageId else { throw SubscribeFailure.wrongStage }
            let resourceId = UUID().uuidString.lowercased()
            let peer = try MediaPeer(id: resourceId, engine: engine, dtlsRole: offer.localDTLSRole, remoteFingerprint: offer.fingerprint)
            // One transport-wide numbering for everything it is sent, if it reports arrivals.
            let sendHistory = offer.sections.contains { Self.transportWideID(of: $0) != nil }
                ? TransportSendHistory(firstSequence: .random(in: .min ... .max)) : nil
            let connection = SubscriberConnection(id: resourceId, ownerId: ownerId ?? subscriberId ?? "", stageId: stageId, peer: peer,
                                            adaptsToDownlink: downlinkAdaptation, answersNACKs: lossRepair, paced: pacing,
                                            sendHistory: sendHistory)
            var outgoing: [String: AnswerBuilder.OutgoingTrack] = [:]
            for section in offer.sections where section.direction == .recvonly || section.direction == .sendrecv {
                guard let producer = publisher.producer(kind: section.kind) else { continue }
                let ssrc = UInt32.random(in: 0x1000...UInt32.max)
                let forwarded = MediaMetrics.shared.forwarded(producer.kind)
                let writer = ForwardedPacketWriter(absSendTimeID: section.extensions[RTPExtensionURI.absSendTime].map { UInt8($0) },
                                                   transportWide: sendHistory.flatMap { history in
                                                       Self.transportWideID(of: section).map { (id: $0, history: history) }
                                                   })
                let output = ConsumerOutput(peer: peer, writer: writer, pacer: connection.pacer,
                                            traffic: producer.kind == .video ? .video : .audio, forwarded: forwarded)
                let consumer = Consumer(id: "\(resourceId):\(section.mid)", producer: producer, outgoingSSRC: ssrc,
                                        payloadType: section.codec.payloadType) { packet, rewrite in
                    output.send(packet, rewrite: rewrite)
                }
                if connection.pacer != nil {
                    consumer.sendRepair = { packet, rewrite in output.sendRepair(packet, rewrite: rewrite) }
                }
                if let layer, let index = producer.layers.firstIndex(of: layer) { consumer.setPreferredLayer(index) }
                var retransmissionSSRC: UInt32?
                if producer.kind == .video, let payloadType = section.retransmissionPayloadType {
                    let rtx = UInt32.random(in: 0x1000...UInt32.max)
                    consumer.enableRetransmission(.init(ssrc: rtx, payloadType: payloadType))
                    retransmissionSSRC = rtx
                }
                consumer.sendSenderReport = { [weak peer] ssrc, ntp, rtp, packets, octets in
                    RTCPFeedback.senderReport(ssrc: ssrc, ntpTime: ntp, rtpTime: rtp, packets: packets, octets: octets)
                        .withUnsafeBytes { _ = peer?.sendRTCP($0) }
                }
                connection.add(consumer)
                outgoing[section.mid] = .init(ssrc: ssrc, streamID: publisherId, trackID: "\(publisherId)-\(section.kind.rawValue)",
                                              retransmissionSSRC: retransmissionSSRC)
            }
            if let subscriberId {
                let hub = self.hub
                connection.adaptation?.onEstimateChanged = { bitsPerSecond in
                    Task { await hub.downlinkEstimate(stageId: stageId, subscriberId: subscriberId, publisherId: publisherId, bitsPerSecond: bitsPerSecond) }
                }
            }
            let key = subscriberId.map { "\($0)|\(publisherId)" }
            connection.onClose = { [weak self] closed in
                self?.subscribers[closed.id] = nil
                if let key { self?.subscriptionsBySubscriber[key]?.removeAll { $0 == closed.id } }
            }
            subscribers[resourceId] = connection
            if let key { subscriptionsBySubscriber[key, default: []].append(resourceId) }
            engine.register(peer)
            let answer = AnswerBuilder(offer: offer, credentials: peer.credentials, fingerprint: engine.dtlsContext.certificate.sdpFingerprint,
                                       candidates: candidates).answer(outgoing: outgoing)
            return Answer(resourceId: resourceId, sdp: answer)
        }.get()
    }

    /// The transport-cc extension ID to write on what a subscriber's section receives (one-byte form, 1…14).
    private static func transportWideID(of section: RemoteOffer.Section) -> UInt8? {
        guard section.direction == .recvonly || section.direction == .sendrecv,
              let id = section.extensions[RTPExtensionURI.transportWideCC], (1...14).contains(id) else { return nil }
        return UInt8(id)
    }

    /// Media follows authorization: every peer connection of `participantId` on the stage (or of
    /// everyone on it, when nil) ends now with a DTLS close_notify — its publish connections (whose
    /// subscribers then see the publisher leave) and the subscribe connections it owns.
    /// - Returns: whether there was anything to end.
    @discardableResult
    func end(stageId: String, participantId: String?, reason: String) async -> Bool {
        (try? await engine.eventLoop.submit { [self] in
            let matches = { (stage: String, owner: String) in stage == stageId && (participantId == nil || owner == participantId) }
            let peers = publisherResources.values.filter { matches($0.stageId, $0.participantId) }.map(\.peer)
                + subscribers.values.filter { matches($0.stageId, $0.ownerId) }.map(\.peer)
            for peer in peers { peer.close(reason: reason) }
            return !peers.isEmpty
        }.get()) ?? false
    }

    /// The participant a WHIP or WHEP resource belongs to; nil when there is no such resource.
    func owner(resourceId: String) async -> String? {
        try? await engine.eventLoop.submit { [self] in
            publisherResources[resourceId]?.participantId ?? subscribers[resourceId]?.ownerId
        }.get()
    }

    /// DELETE on a WHIP or WHEP resource; false when there is no such resource.
    func close(resourceId: String) async -> Bool {
        (try? await engine.eventLoop.submit { [self] in
            if let connection = publisherResources[resourceId] {
                connection.peer.close(reason: "DELETE")
                return true
            }
            if let connection = subscribers[resourceId] {
                connection.peer.close(reason: "DELETE")
                return true
            }
            return false
        }.get()) ?? false
    }

    enum LayerFailure: Error { case noSuchResource, noSuchLayer([String]) }

    /// Changes the simulcast layer a subscriber receives; the switch happens at a keyframe.
    func setLayer(resourceId: String, rid: String?) async throws {
        try await engine.eventLoop.submit { [self] in
            guard let connection = subscribers[resourceId] else { throw LayerFailure.noSuchResource }
            for consumer in connection.consumers.values {
                guard let layers = consumer.producer?.layers, !layers.isEmpty else { continue }
                guard let rid else {
                    consumer.setPreferredLayer(nil)
                    continue
                }
                guard let index = layers.firstIndex(of: rid) else { throw LayerFailure.noSuchLayer(layers) }
                consumer.setPreferredLayer(index)
            }
        }.get()
    }

    /// Signaling `preferLayer`: the layer a participant receives from a publisher.
    /// - Returns: false when it has no subscribe connection to that publisher.
    func preferLayer(subscriberId: String, publisherId: String, rid: String?) async throws -> Bool {
        let resources = try await engine.eventLoop.submit { [self] in
            subscriptionsBySubscriber["\(subscriberId)|\(publisherId)"] ?? []
        }.get()
        for resource in resources { try await setLayer(resourceId: resource, rid: rid) }
        return !resources.isEmpty
    }

    /// The stream allocators' choices now (on the media loop), for `/metrics`.
    func allocationSnapshot() async -> AllocationGauges.Snapshot {
        (try? await engine.eventLoop.submit { [self] in
            var snapshot = AllocationGauges.Snapshot()
            for connection in subscribers.values {
                for consumer in connection.consumers.values where consumer.isAllocated {
                    if let selector = consumer.selector { snapshot.layers.append(consumer.isPaused ? nil : selector.current) }
                    snapshot.temporalLayers.append(consumer.temporalLayer)
                }
                if let estimate = connection.adaptation?.reportedEstimate { snapshot.estimates.append(estimate) }
            }
            return snapshot
        }.get()) ?? AllocationGauges.Snapshot()
    }

    /// Signaling `mute` from a media publisher: stop or resume forwarding that stream.
    func setMuted(participantId: String, streamId: String, muted: Bool) async {
        try? await engine.eventLoop.submit { [self] in
            // A connection still being replaced forwards until its successor connects: it too.
            publishers[participantId]?.replacing?.setMuted(streamId: streamId, muted: muted)
            publishers[participantId]?.setMuted(streamId: streamId, muted: muted)
        }.get()
    }
}
