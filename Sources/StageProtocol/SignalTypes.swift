public import StageWire

/// Value types carried by the signaling messages (see `Protocol/README.md`); a stream's kind is
/// StageWire's `MediaKind`.

/// What a subscriber asks to receive from one publisher (IVS `IVSStageSubscribeType`).
public enum SubscribeType: String, Codable, Sendable, Hashable, CaseIterable {
    case none
    case audioOnly
    case audioVideo

    /// Whether a stream of `kind` is part of this subscription.
    public func includes(_ kind: MediaKind) -> Bool {
        switch self {
        case .none: false
        case .audioOnly: kind == .audio
        case .audioVideo: true
        }
    }
}

/// A published stream as the other participants see it. Media details arrive with SDP.
public struct StreamDescriptor: Codable, Sendable, Hashable {
    /// Unique within the publishing participant, e.g. `"camera"` or `"mic"`. 1–64 characters.
    public var streamId: String
    public var kind: MediaKind
    public var muted: Bool

    public init(streamId: String, kind: MediaKind, muted: Bool = false) {
        self.streamId = streamId
        self.kind = kind
        self.muted = muted
    }
}

/// Publish and subscribe rights granted by the participant token.
public struct Capabilities: Codable, Sendable, Hashable {
    public var allowPublish: Bool
    public var allowSubscribe: Bool

    enum CodingKeys: String, CodingKey {
        case allowPublish = "allow_publish"
        case allowSubscribe = "allow_subscribe"
    }

    public init(allowPublish: Bool, allowSubscribe: Bool) {
        self.allowPublish = allowPublish
        self.allowSubscribe = allowSubscribe
    }
}

/// Who a participant is, as every client of the stage sees it (IVS `ParticipantInfo`).
public struct ParticipantDescriptor: Codable, Sendable, Hashable {
    public var participantId: String
    public var userId: String
    public var attributes: [String: String]
    public var capabilities: Capabilities

    public init(participantId: String, userId: String, attributes: [String: String], capabilities: Capabilities) {
        self.participantId = participantId
        self.userId = userId
        self.attributes = attributes
        self.capabilities = capabilities
    }
}

/// A participant that publishes, with what it publishes.
public struct PublisherDescriptor: Codable, Sendable, Hashable {
    public var participant: ParticipantDescriptor
    public var streams: [StreamDescriptor]

    public init(participant: ParticipantDescriptor, streams: [StreamDescriptor]) {
        self.participant = participant
        self.streams = streams
    }
}

/// Why a remote participant stopped being visible.
public enum LeaveReason: String, Codable, Sendable, Hashable {
    /// It stopped publishing but is still connected.
    case unpublished
    /// It left the stage.
    case left
    /// It was disconnected by the server or the control plane.
    case disconnected
}

/// Stable error codes of the signaling protocol. The numeric ranges follow the HTTP classes:
/// 4xxx the client's fault, 5xxx the server's.
public enum SignalErrorCode: Int, Codable, Sendable, Hashable {
    case malformedMessage = 4000
    case unsupportedVersion = 4001
    case notJoined = 4002
    case alreadyJoined = 4003
    case invalidToken = 4010
    case tokenExpired = 4011
    case participantRevoked = 4012
    case stageNotFound = 4013
    case insufficientCapabilities = 4030
    case publisherNotFound = 4040
    case invalidField = 4220
    /// The stage already has as many publishers as it may (IVS: 12).
    case stageAtCapacity = 4090
    case messageTooLarge = 4130
    case rateLimited = 4290
    case notImplemented = 5010
    case internalError = 5000
}

/// Why the server ends a signaling session.
public enum DisconnectReason: String, Codable, Sendable, Hashable {
    /// DisconnectParticipant was called; the reason text carries the operator's reason.
    case disconnectedByOperator
    /// The same token joined again from elsewhere (reconnection).
    case replacedBySameToken
    /// The stage was deleted.
    case stageDeleted
    /// The token expired while connected.
    case tokenExpired
    /// The client broke the protocol (oversized frames, flooding, no join in time).
    case protocolViolation
    /// The server is shutting down.
    case serverShutdown
}
