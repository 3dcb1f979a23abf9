import Foundation
import StageProtocol
public import StageTLS
import StageTransport

/// A stage session (IVS `IVSStage`): joins with a participant token, applies what the strategy
/// wants, and reports what happens to the renderers.
///
/// Everything runs on the main actor: the strategy is asked there and every renderer and
/// error-delegate callback is delivered there, in event order.
@MainActor
public final class Stage {
    public static let sdkVersion = "0.1.0"

    public let token: String
    public let strategy: any StageStrategy
    /// Whom the signaling socket trusts when the token's `events_url` is `wss://`.
    public let tls: StageTLSConfiguration
    /// STUN/TURN servers and the transport policy of the media connections.
    public let ice: StageICEConfiguration
    public weak var errorDelegate: (any StageErrorDelegate)?
    public internal(set) var connectionState: StageConnectionState = .disconnected
    /// Publish, unpublish, mute and subscribe requests sent so far: what `refreshStrategy()` cost.
    public internal(set) var strategyRequestsSent = 0
    /// The participant id of this client (the token's `jti`).
    public let localParticipantId: String

    let claims: ParticipantTokenClaims
    var renderers: [WeakRenderer] = []
    var channel: SignalingChannel?
    /// Bumped for each new channel and at tear-down; events of an older channel are dropped.
    var channelGeneration = 0
    var pingTask: Task<Void, Never>?
    var joinWaiter: CheckedContinuation<Void, any Error>?

    /// The local participant as the server confirmed it.
    var local: ParticipantInfo
    /// Streams last returned by the strategy for publishing.
    var localStreams: [LocalStageStream] = []
    /// The local streams the server confirmed as published.
    var confirmedLocal: [StreamDescriptor] = []
    /// Remote participants that publish.
    var roster: Roster
    /// What the SDK has requested (sent, possibly not yet answered).
    var applied = StrategyState()
    /// Requests, `sdpOffer`s and round-trip pings awaiting the server's reply.
    var requests = RequestMatcher<CheckedContinuation<Bool, Never>, PendingAnswer>()

    /// The DTLS certificate of this client's peer connections (nil without media).
    let mediaContext: DTLSContext?
    /// Whether streams with a capture source send media and subscriptions receive it. Off,
    /// the stage only exchanges descriptions (what the signaling benchmark measures).
    public var mediaEnabled: Bool { mediaContext != nil }
    var mediaPublisher: MediaPublisher?
    /// Publisher id → the connection receiving its media.
    var mediaSubscribers: [String: MediaSubscriber] = [:]
    var mediaReconnecting = false
    /// Set by `leave()`; otherwise a lost signaling socket is joined again with the same token.
    var leaving = false
    /// Whether and when a lost session is joined again.
    var rejoin = RejoinPolicy()
    var rejoinTask: Task<Void, Never>?
    /// True from the loss of a joined session until it is joined again or the SDK gives up:
    /// a `.disconnected` state reported meanwhile is a step of reconnecting, not the end.
    public var isReconnecting: Bool { rejoin.isRejoining }

    struct WeakRenderer {
        weak var renderer: (any StageRenderer)?
    }

    /// - Parameters:
    ///   - media: false for a stage that exchanges descriptions only, no media.
    ///   - tls: for a `wss://` signaling URL, the CA roots to trust: the system's (default) or a
    ///     CA file, e.g. `StageTLSConfiguration(caFile: "ca.pem")` for a server with a private CA.
    ///   - ice: STUN and TURN servers for networks that need them (default: none; every local
    ///     interface is tried over UDP and TCP).
    /// - Throws: `StageError` with `.invalidToken` when the token is not a participant token, and
    ///   with `.connectionFailed` when the CA file cannot be read.
    public init(token: String, strategy: any StageStrategy, media: Bool = true, tls: StageTLSConfiguration = .systemRoots,
                ice: StageICEConfiguration = StageICEConfiguration()) throws {
        do {
            try tls.validate()
        } catch {
            throw StageError(code: .connectionFailed, message: "tls: \(error)")
        }
        self.tls = tls
        self.ice = ice
        do {
            mediaContext = media ? try DTLSContext(certificate: DTLSCertificate()) : nil
        } catch {
            throw StageError(code: .connectionFailed, message: "media: cannot make a DTLS certificate: \(error)")
        }
        do {
            claims = try ParticipantTokenClaims.decodeUnverified(token)
        } catch {
            throw StageError(code: .invalidToken, message: "\(error)")
        }
        self.token = token
        self.strategy = strategy
        localParticipantId = claims.jti
        roster = Roster(localParticipantId: claims.jti)
        local = ParticipantInfo(ParticipantDescriptor(participantId: claims.jti, userId: claims.userId ?? "",
                                                      attributes: claims.attributes ?? [:], capabilities: claims.capabilities),
                                isLocal: true)
    }

    /// Renderers are held weakly; keep a reference to them.
    public func addRenderer(_ renderer: any StageRenderer) {
        renderers.removeAll { $0.renderer == nil || $0.renderer === renderer }
        renderers.append(WeakRenderer(renderer: renderer))
    }

    public func removeRenderer(_ renderer: any StageRenderer) {
        renderers.removeAll { $0.renderer == nil || $0.renderer === renderer }
    }

    /// Connects, waits for the server to admit the token, then applies the strategy:
    /// subscribes to current publishers and publishes if the strategy says so.
    /// - Throws: `StageError` when the server refuses the token or cannot be reached.
    public func join(timeout: Duration = .seconds(10)) async throws {
        guard connectionState == .disconnected else {
            throw StageError(code: .server(.alreadyJoined), message: "join: the stage is already \(connectionState)")
        }
        leaving = false
        setConnectionState(.connecting, error: nil)
        // Events of a channel this stage has since dropped (torn down, rejoined) are ignored.
        channelGeneration += 1
        let generation = channelGeneration
        let channel = SignalingChannel(url: claims.eventsURL, tls: tls) { [weak self] event in
            guard let self, self.channelGeneration == generation else { return }
            self.receive(event)
        }
        self.channel = channel
        channel.send(.join(.init(token: token, client: ClientDescription(sdkVersion: Self.sdkVersion, osName: "Linux",
                                                                        osVersion: ProcessInfo.processInfo.operatingSystemVersionString))))
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            self?.failJoin(StageError(code: .timedOut, message: "join: no answer from the server in \(timeout)"))
        }
        defer { timer.cancel() }
        try await withCheckedThrowingContinuation { joinWaiter = $0 }
    }

    /// Leaves the stage: every stream is removed and every participant leaves, through the renderers.
    public func leave() {
        leaving = true
        rejoin.stop()
        rejoinTask?.cancel()
        rejoinTask = nil
        guard let channel else { return }
        channel.send(.leave)
        channel.close()
        tearDown(error: nil)
    }

    /// Asks the strategy again and applies only what changed; an unchanged strategy sends nothing.
    public func refreshStrategy() {
        guard connectionState == .connected else { return }
        perform(StrategyDiff.actions(from: applied, to: desiredState(), publishers: roster.participantIds))
    }

    /// Chooses which simulcast layer of a participant's video the server forwards to us
    /// (`"q"`, `"h"` or `"f"`: quarter, half, full size; nil: the server's choice, the top one).
    /// Takes effect once subscribed; an unknown layer is reported through the error delegate.
    public func preferLayer(_ rid: String?, forParticipant participantId: String) {
        guard connectionState == .connected else { return }
        channel?.send(.preferLayer(.init(participantId: participantId, rid: rid)))
    }

    /// The streams the local participant publishes now, as confirmed by the server.
    public var publishedStreams: [LocalStageStream] {
        localStreams.filter { stream in confirmedLocal.contains { $0.streamId == stream.streamId } }
    }

    /// Sends a signaling ping and waits for its pong: true when it came back within `timeout`.
    /// The time this takes is the signaling round trip.
    public func roundTrip(timeout: Duration = .seconds(5)) async -> Bool {
        guard let channel, connectionState == .connected else { return false }
        let nonce = requests.newPingNonce()
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.requests.pongWaiter(for: nonce)?.resume(returning: false)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            requests.waitForPong(continuation, nonce: nonce)
            channel.send(.ping(.init(nonce: nonce)))
        }
    }

    /// The signaling socket was lost while joined: join again as `rejoin` says. The strategy is
    /// applied again on success, so publishing and subscriptions come back as they were.
    func scheduleRejoin() {
        rejoinTask?.cancel()
        rejoinTask = Task { [weak self] in
            var failure: (any Error)?
            while let step = self?.rejoin.next(after: failure) {
                switch step {
                case .giveUp(let error):
                    self?.giveUpRejoining(error)
                    return
                case .attempt(let delay, let timeout):
                    try? await Task.sleep(for: delay)
                    guard let self, !Task.isCancelled, !self.leaving, self.connectionState == .disconnected else { return }
                    do {
                        try await self.join(timeout: timeout)
                        return
                    } catch {
                        failure = error
                    }
                }
            }
        }
    }

    private func giveUpRejoining(_ error: StageError) {
        rejoinTask = nil
        setConnectionState(.disconnected, error: error)
    }

    func failJoin(_ error: StageError) {
        guard joinWaiter != nil else { return }
        tearDown(error: error)
    }
}
