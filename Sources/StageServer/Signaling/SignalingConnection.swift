import Foundation
import Logging
import HummingbirdWebSocket
import StageTransport
import StageProtocol
import Synchronization

/// One participant's WebSocket, from the first frame to the close: waits for `join`, checks
/// the token, registers the peer with the hub, then reads requests until the socket ends.
/// Outbound frames come only from the peer's queue, written by one task, in order.
struct SignalingConnection {
    let hub: SignalingHub
    let admission: TokenAdmission
    let media: MediaService
    let stageId: String
    let connectionId: UInt64
    private let codec = SignalCodec()

    init(hub: SignalingHub, admission: TokenAdmission, media: MediaService, stageId: String, connectionId: UInt64) {
        self.hub = hub
        self.admission = admission
        self.media = media
        self.stageId = stageId
        self.connectionId = connectionId
    }

    /// Liveness facts shared with the watchdog task.
    final class Liveness: Sendable {
        let lastSeen = Mutex(ContinuousClock.now)
        let participant = Mutex<(id: String, expiry: Double)?>(nil)
        func touch() { lastSeen.withLock { $0 = .now } }
    }

    /// - Throws: what the WebSocket stream threw (a frame too large, invalid UTF-8 in a text
    ///   frame, a protocol error), after the session is cleaned up, so the WebSocket layer
    ///   closes with the matching code (1009, 1007, 1002; RFC 6455 §7.4.1).
    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let liveness = Liveness()
        let watchdog = Task { await watch(liveness, outbound: outbound) }
        defer { watchdog.cancel() }
        var frames = inbound.messages(maxSize: ProtocolVersion.maxMessageBytes).makeAsyncIterator()

        // 1. The first frame must be a valid join.
        let peerSetup: Admission
        do {
            guard let first = try await frames.next() else { return }
            liveness.touch()
            peerSetup = try await admit(first)
        } catch let refusal as ServerMessage.SignalError {
            ServerMetrics.signalingRejected(reason: "\(refusal.code)")
            try? await outbound.write(.text(codec.encode(.error(refusal))))
            try? await outbound.close(.policyViolation, reason: refusal.message.prefix(120).description)
            return
        } catch {
            ServerMetrics.signalingRejected(reason: "streamFailed")
            throw error
        }
        let (peer, queue) = (peerSetup.peer, peerSetup.queue)
        liveness.participant.withLock { $0 = (peer.participantId, peerSetup.expiry) }
        let writer = Task { await Self.drain(queue, to: outbound) }
        await hub.join(stageId: stageId, peer: peer)
        ServerLog.signaling.info("joined", metadata: ["stage": "\(stageId)", "participant": "\(peer.participantId)"])

        // 2. Requests until leave, close or a protocol violation.
        var streamError: (any Error)?
        var limiter = RateLimiter(rate: SignalingLimits.messagesPerSecond, burst: SignalingLimits.burst)
        var refused = 0
        do {
            readLoop: while let frame = try await frames.next() {
                liveness.touch()
                guard limiter.allow() else {
                    refused += 1
                    ServerMetrics.signalingRejected(reason: "rateLimited")
                    if refused >= SignalingLimits.maxRefusedMessages {
                        await hub.expel(stageId: stageId, participantId: peer.participantId, connectionId: connectionId,
                                        reason: .protocolViolation, message: "more than \(Int(SignalingLimits.messagesPerSecond)) messages per second, persistently")
                        break
                    }
                    if refused.isMultiple(of: 10) || refused == 1 {
                        peer.send(.error(.init(code: .rateLimited, message: "rate limit: \(Int(SignalingLimits.messagesPerSecond)) messages per second")))
                    }
                    continue
                }
                switch await handle(frame, peer: peer) {
                case .continue: continue
                case .leave: break readLoop
                }
            }
        } catch {
            streamError = error
            ServerMetrics.signalingRejected(reason: "streamFailed")
            await hub.expel(stageId: stageId, participantId: peer.participantId, connectionId: connectionId,
                            reason: .protocolViolation,
                            message: "a frame broke the WebSocket protocol (over \(ProtocolVersion.maxMessageBytes) bytes, invalid UTF-8 text, or malformed)")
        }
        await hub.leave(stageId: stageId, participantId: peer.participantId, connectionId: connectionId)
        peer.finish()
        await writer.value
        ServerLog.signaling.info("left", metadata: ["stage": "\(stageId)", "participant": "\(peer.participantId)"])
        if let streamError { throw streamError }
    }

    enum Next { case `continue`, leave }

    private func handle(_ frame: WebSocketMessage, peer: SignalingPeer) async -> Next {
        guard case .text(let text) = frame else {
            peer.send(.error(.init(code: .malformedMessage, message: "binary frames are not part of the protocol; send JSON text")))
            return .continue
        }
        let message: ClientMessage
        do {
            message = try codec.decodeClient(text)
        } catch {
            let code: SignalErrorCode = (error as? SignalDecodingError).map {
                if case .unsupportedVersion = $0 { return .unsupportedVersion } else { return .malformedMessage }
            } ?? .malformedMessage
            ServerMetrics.signalingRejected(reason: "\(code)")
            peer.send(.error(.init(code: code, message: DecodingDiagnostics.describe(error))))
            return .continue
        }
        ServerMetrics.signalingMessage(type: message.type)
        do {
            if let requestId = message.requestId, !(1...64).contains(requestId.count) {
                throw ServerMessage.SignalError(code: .invalidField, message: "requestId: 1–64 characters, got \(requestId.count)")
            }
            switch message {
            case .join:
                throw ServerMessage.SignalError(code: .alreadyJoined, message: "join: this socket already joined")
            case .publish(let request):
                try await hub.publish(stageId: stageId, participantId: peer.participantId, requestId: request.requestId, streams: request.streams)
            case .unpublish(let request):
                try await hub.unpublish(stageId: stageId, participantId: peer.participantId, requestId: request.requestId)
            case .mute(let request):
                try await hub.mute(stageId: stageId, participantId: peer.participantId, streamId: request.streamId, muted: request.muted)
                await media.setMuted(stageId: stageId, participantId: peer.participantId, streamId: request.streamId, muted: request.muted)
            case .subscribe(let request):
                try await hub.subscribe(stageId: stageId, participantId: peer.participantId, requestId: request.requestId,
                                        publisherId: request.participantId, type: request.subscribeType)
            case .ping(let ping):
                peer.send(.pong(ping))
            case .leave:
                return .leave
            case .sdpOffer(let offer):
                let answer = try await negotiate(offer, for: peer.participant)
                peer.send(.sdpAnswer(.init(requestId: offer.requestId, sdp: answer)))
            case .preferLayer(let request):
                do {
                    guard try await media.preferLayer(stageId: stageId, subscriberId: peer.participantId, publisherId: request.participantId, rid: request.rid) else {
                        throw ServerMessage.SignalError(code: .publisherNotFound,
                                                        message: "preferLayer.participantId: no subscribe connection to \(request.participantId)")
                    }
                } catch MediaService.LayerFailure.noSuchLayer(let layers) {
                    throw ServerMessage.SignalError(code: .invalidField, message: "preferLayer.rid: must be one of \(layers.joined(separator: ", "))")
                }
            }
        } catch let refusal as ServerMessage.SignalError {
            ServerMetrics.signalingRejected(reason: "\(refusal.code)")
            peer.send(.error(refusal))
        } catch {
            peer.send(.error(.init(code: .internalError, message: "internal error")))
        }
        return .continue
    }

    /// Answers an SDP offer for a publish or a subscribe peer connection.
    private func negotiate(_ request: ClientMessage.SdpOffer, for participant: ParticipantDescriptor) async throws -> String {
        func refuse(_ code: SignalErrorCode, _ message: String) -> ServerMessage.SignalError {
            .init(code: code, message: message, requestId: request.requestId)
        }
        let offer: RemoteOffer
        do { offer = try RemoteOffer(sdp: request.sdp) } catch { throw refuse(.invalidField, "sdpOffer.sdp: \(error.reason)") }
        switch request.purpose {
        case .publish:
            guard participant.capabilities.allowPublish else { throw refuse(.insufficientCapabilities, "sdpOffer: the token does not grant PUBLISH") }
            do {
                return try await media.publish(participant: participant, stageId: stageId, offer: offer).sdp
            } catch let error as NegotiationError {
                throw refuse(.invalidField, "sdpOffer.sdp: \(error.reason)")
            }
        case .subscribe:
            guard participant.capabilities.allowSubscribe else { throw refuse(.insufficientCapabilities, "sdpOffer: the token does not grant SUBSCRIBE") }
            guard let publisherId = request.participantId else { throw refuse(.invalidField, "sdpOffer.participantId: required to subscribe") }
            do {
                return try await media.subscribe(to: publisherId, stageId: stageId, offer: offer, subscriberId: participant.participantId).sdp
            } catch MediaService.SubscribeFailure.publisherNotFound, MediaService.SubscribeFailure.wrongStage {
                throw refuse(.publisherNotFound, "sdpOffer.participantId: \(publisherId) does not publish media on this stage")
            } catch let error as NegotiationError {
                throw refuse(.invalidField, "sdpOffer.sdp: \(error.reason)")
            }
        }
    }

    /// Checks the join frame and the token; returns the peer and its outbound queue.
    struct Admission {
        var peer: SignalingPeer
        var queue: AsyncStream<SignalingPeer.Outgoing>
        var expiry: Double
    }

    private func admit(_ frame: WebSocketMessage) async throws -> Admission {
        guard case .text(let text) = frame else {
            throw ServerMessage.SignalError(code: .malformedMessage, message: "the first frame must be a JSON text join message")
        }
        let message: ClientMessage
        do {
            message = try codec.decodeClient(text)
        } catch let error as SignalDecodingError {
            if case .unsupportedVersion = error { throw ServerMessage.SignalError(code: .unsupportedVersion, message: error.description) }
            throw ServerMessage.SignalError(code: .malformedMessage, message: error.description)
        } catch {
            throw ServerMessage.SignalError(code: .malformedMessage, message: DecodingDiagnostics.describe(error))
        }
        guard case .join(let join) = message else {
            throw ServerMessage.SignalError(code: .notJoined, message: "\(message.type): send join first")
        }
        let claims = try await admission.admit(join.token, stageId: stageId)
        let participant = ParticipantDescriptor(participantId: claims.jti, userId: claims.userId ?? "",
                                                attributes: claims.attributes ?? [:], capabilities: claims.capabilities)
        let (queue, continuation) = SignalingPeer.makeOutbox()
        return Admission(peer: SignalingPeer(connectionId: connectionId, participant: participant, client: join.client, outbox: continuation),
                         queue: queue, expiry: Double(claims.exp))
    }

    /// Writes queued frames in order; closes the socket after a final frame or when the queue ends.
    static func drain(_ queue: AsyncStream<SignalingPeer.Outgoing>, to outbound: WebSocketOutboundWriter) async {
        for await item in queue {
            switch item {
            case .text(let text):
                do { try await outbound.write(.text(text)) } catch { return }
            case .message(let message):
                do { try await outbound.write(.text(SignalCodec().encode(message))) } catch { return }
            case .close(let text):
                try? await outbound.write(.text(text))
                try? await outbound.close(.normalClosure, reason: nil)
                return
            }
        }
        try? await outbound.close(.normalClosure, reason: nil)
    }

    /// Ends sessions that never join, go silent, or outlive their token.
    private func watch(_ liveness: Liveness, outbound: WebSocketOutboundWriter) async {
        let silenceLimit = Duration.seconds(3 * SignalingLimits.pingIntervalSeconds)
        let start = ContinuousClock.now
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(500))
            guard let joined = liveness.participant.withLock({ $0 }) else {
                if ContinuousClock.now - start > SignalingLimits.joinTimeout {
                    try? await outbound.write(.text(codec.encode(.error(.init(code: .notJoined, message: "no join within 10 s")))))
                    try? await outbound.close(.policyViolation, reason: "no join within 10 s")
                    return
                }
                continue
            }
            if Date().timeIntervalSince1970 >= joined.expiry {
                await hub.expel(stageId: stageId, participantId: joined.id, connectionId: connectionId,
                                reason: .tokenExpired, message: "the participant token expired")
                return
            }
            if ContinuousClock.now - liveness.lastSeen.withLock({ $0 }) > silenceLimit {
                await hub.expel(stageId: stageId, participantId: joined.id, connectionId: connectionId,
                                reason: .protocolViolation, message: "no message for \(3 * SignalingLimits.pingIntervalSeconds) s")
                return
            }
        }
    }
}

/// Turns a JSON decoding error into a message that names the field.
enum DecodingDiagnostics {
    static func describe(_ error: any Error) -> String {
        if let signal = error as? SignalDecodingError { return signal.description }
        guard let decoding = error as? DecodingError else { return "not a valid message" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "message" : keys.joined(separator: ".")
        }
        switch decoding {
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "\(parent == "message" ? "" : parent + ".")\(key.stringValue): required"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(path(context)): wrong type"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "message: not valid JSON" : "\(path(context)): invalid value"
        @unknown default:
            return "not a valid message"
        }
    }
}
