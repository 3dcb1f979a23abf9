/// Messages the server sends on the signaling WebSocket, framed like `ClientMessage`.
public enum ServerMessage: Sendable, Hashable {
    case joined(Joined)
    case participantJoined(PublisherDescriptor)
    case participantLeft(ParticipantLeft)
    case streamsChanged(StreamsChanged)
    case muteChanged(StreamsChanged)
    case publishState(PublishState)
    case subscribeState(SubscribeState)
    case error(SignalError)
    case disconnect(Disconnect)
    case pong(Ping)
    /// Reserved for the media plane: the answer to a `sdpOffer`.
    case sdpAnswer(SdpAnswer)
    /// To a publisher: which simulcast layers of one of its streams subscribers receive (dynacast).
    case publishLayers(PublishLayers)
    /// To a subscriber: the server's estimate of its link for one subscription.
    case downlinkEstimate(DownlinkEstimate)

    /// The answer to `join`: the local participant as the server knows it and who publishes now.
    public struct Joined: Codable, Sendable, Hashable {
        public var sessionId: String
        public var participant: ParticipantDescriptor
        public var publishers: [PublisherDescriptor]
        /// Seconds between keep-alive pings the server expects; silence for 3× this ends the session.
        public var pingIntervalSeconds: Int
        public init(sessionId: String, participant: ParticipantDescriptor, publishers: [PublisherDescriptor], pingIntervalSeconds: Int) {
            self.sessionId = sessionId
            self.participant = participant
            self.publishers = publishers
            self.pingIntervalSeconds = pingIntervalSeconds
        }
    }

    public struct ParticipantLeft: Codable, Sendable, Hashable {
        public var participantId: String
        public var reason: LeaveReason
        public init(participantId: String, reason: LeaveReason) {
            self.participantId = participantId
            self.reason = reason
        }
    }

    /// A publisher's streams after a change. In `muteChanged`, only the streams whose mute changed.
    public struct StreamsChanged: Codable, Sendable, Hashable {
        public var participantId: String
        public var streams: [StreamDescriptor]
        public init(participantId: String, streams: [StreamDescriptor]) {
            self.participantId = participantId
            self.streams = streams
        }
    }

    public struct PublishState: Codable, Sendable, Hashable {
        public enum State: String, Codable, Sendable, Hashable { case published, notPublished }
        public var requestId: String?
        public var state: State
        public var streams: [StreamDescriptor]
        public init(requestId: String?, state: State, streams: [StreamDescriptor]) {
            self.requestId = requestId
            self.state = state
            self.streams = streams
        }
    }

    public struct SubscribeState: Codable, Sendable, Hashable {
        public enum State: String, Codable, Sendable, Hashable { case subscribed, notSubscribed }
        public var requestId: String?
        public var participantId: String
        public var subscribeType: SubscribeType
        public var state: State
        /// The streams now received from that publisher.
        public var streams: [StreamDescriptor]
        public init(requestId: String?, participantId: String, subscribeType: SubscribeType, state: State, streams: [StreamDescriptor]) {
            self.requestId = requestId
            self.participantId = participantId
            self.subscribeType = subscribeType
            self.state = state
            self.streams = streams
        }
    }

    public struct SignalError: Codable, Sendable, Hashable, Error {
        public var code: SignalErrorCode
        public var message: String
        public var requestId: String?
        public init(code: SignalErrorCode, message: String, requestId: String? = nil) {
            self.code = code
            self.message = message
            self.requestId = requestId
        }
    }

    /// The last message of a session; the server closes the socket after it.
    public struct Disconnect: Codable, Sendable, Hashable {
        public var reason: DisconnectReason
        public var message: String
        public init(reason: DisconnectReason, message: String) {
            self.reason = reason
            self.message = message
        }
    }

    public struct SdpAnswer: Codable, Sendable, Hashable {
        public var requestId: String
        public var sdp: String
        public init(requestId: String, sdp: String) {
            self.requestId = requestId
            self.sdp = sdp
        }
    }
}

extension ServerMessage {
    /// The simulcast layers (rids) of one of the participant's published streams that some
    /// subscriber receives now or is about to. The publisher may stop encoding the others and
    /// must send a layer again, starting with a keyframe, as soon as it is listed. Sent when
    /// the set changes; a publisher that never gets one sends every layer.
    public struct PublishLayers: Codable, Sendable, Hashable {
        public var streamId: String
        public var rids: [String]
        public init(streamId: String, rids: [String]) {
            self.streamId = streamId
            self.rids = rids
        }
    }

    /// What the server estimates the subscriber's link carries on its subscription to
    /// `participantId`'s media (from its receiver reports, NACKs and REMB), in bits per second:
    /// the budget its stream allocator spends on the layers it forwards. Sent when it changes
    /// by a tenth or more, at most once a second; 20 Mbps (the estimator's ceiling) until the
    /// link has shown a limit.
    public struct DownlinkEstimate: Codable, Sendable, Hashable {
        public var participantId: String
        public var bitsPerSecond: Int
        public init(participantId: String, bitsPerSecond: Int) {
            self.participantId = participantId
            self.bitsPerSecond = bitsPerSecond
        }
    }
}

extension ServerMessage: Codable {
    public var type: String {
        switch self {
        case .joined: "joined"
        case .participantJoined: "participantJoined"
        case .participantLeft: "participantLeft"
        case .streamsChanged: "streamsChanged"
        case .muteChanged: "muteChanged"
        case .publishState: "publishState"
        case .subscribeState: "subscribeState"
        case .error: "error"
        case .disconnect: "disconnect"
        case .pong: "pong"
        case .sdpAnswer: "sdpAnswer"
        case .publishLayers: "publishLayers"
        case .downlinkEstimate: "downlinkEstimate"
        }
    }

    public init(from decoder: any Decoder) throws {
        let type = try Envelope.decodeType(from: decoder)
        switch type {
        case "joined": self = .joined(try Joined(from: decoder))
        case "participantJoined": self = .participantJoined(try PublisherDescriptor(from: decoder))
        case "participantLeft": self = .participantLeft(try ParticipantLeft(from: decoder))
        case "streamsChanged": self = .streamsChanged(try StreamsChanged(from: decoder))
        case "muteChanged": self = .muteChanged(try StreamsChanged(from: decoder))
        case "publishState": self = .publishState(try PublishState(from: decoder))
        case "subscribeState": self = .subscribeState(try SubscribeState(from: decoder))
        case "error": self = .error(try SignalError(from: decoder))
        case "disconnect": self = .disconnect(try Disconnect(from: decoder))
        case "pong": self = .pong(try Ping(from: decoder))
        case "sdpAnswer": self = .sdpAnswer(try SdpAnswer(from: decoder))
        case "publishLayers": self = .publishLayers(try PublishLayers(from: decoder))
        case "downlinkEstimate": self = .downlinkEstimate(try DownlinkEstimate(from: decoder))
        default: throw Envelope.unknownType(type, decoder: decoder)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try Envelope.encode(type: type, to: encoder)
        switch self {
        case .joined(let m): try m.encode(to: encoder)
        case .participantJoined(let m): try m.encode(to: encoder)
        case .participantLeft(let m): try m.encode(to: encoder)
        case .streamsChanged(let m), .muteChanged(let m): try m.encode(to: encoder)
        case .publishState(let m): try m.encode(to: encoder)
        case .subscribeState(let m): try m.encode(to: encoder)
        case .error(let m): try m.encode(to: encoder)
        case .disconnect(let m): try m.encode(to: encoder)
        case .pong(let m): try m.encode(to: encoder)
        case .sdpAnswer(let m): try m.encode(to: encoder)
        case .publishLayers(let m): try m.encode(to: encoder)
        case .downlinkEstimate(let m): try m.encode(to: encoder)
        }
    }
}
