public import StageProtocol
public import StageWire

public typealias SubscribeType = StageProtocol.SubscribeType
public typealias Capabilities = StageProtocol.Capabilities
public typealias MediaKind = StageWire.MediaKind

/// The stage connection, as IVS names it (`IVSStageConnectionState`).
public enum StageConnectionState: String, Sendable, Hashable {
    case disconnected, connecting, connected
}

/// A participant's publishing, as IVS names it (`IVSParticipantPublishState`).
public enum ParticipantPublishState: String, Sendable, Hashable {
    case notPublished, attemptingPublish, published
}

/// The local client's subscription to a participant (`IVSParticipantSubscribeState`).
public enum ParticipantSubscribeState: String, Sendable, Hashable {
    case notSubscribed, attemptingSubscribe, subscribed
}

/// Who a participant is (IVS `ParticipantInfo`), as a snapshot at the time of a callback.
public struct ParticipantInfo: Sendable, Hashable {
    public var participantId: String
    public var userId: String
    public var attributes: [String: String]
    public var isLocal: Bool
    public var capabilities: Capabilities
    public var publishState: ParticipantPublishState
    public var subscribeState: ParticipantSubscribeState

    init(_ descriptor: ParticipantDescriptor, isLocal: Bool,
         publishState: ParticipantPublishState = .notPublished, subscribeState: ParticipantSubscribeState = .notSubscribed) {
        participantId = descriptor.participantId
        userId = descriptor.userId
        attributes = descriptor.attributes
        self.isLocal = isLocal
        capabilities = descriptor.capabilities
        self.publishState = publishState
        self.subscribeState = subscribeState
    }
}

/// An error reported by the stage: a signaling error code from the server, or a local one.
public struct StageError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// The server refused a request (see `Protocol/README.md` for the codes).
        case server(SignalErrorCode)
        /// The server ended the session.
        case disconnected(DisconnectReason)
        case invalidToken
        case connectionFailed
        case timedOut
        case notJoined
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
