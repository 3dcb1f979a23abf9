/// Messages a client sends on the signaling WebSocket. Each is one JSON text frame:
/// `{"v": 1, "type": "<case>", ...fields}` (see `Protocol/README.md`).
public enum ClientMessage: Sendable, Hashable {
    case join(Join)
    case publish(Publish)
    case unpublish(Unpublish)
    case mute(Mute)
    case subscribe(Subscribe)
    case ping(Ping)
    case leave
    /// An SDP offer for a publish or subscribe peer connection.
    case sdpOffer(SdpOffer)
    /// The simulcast layer to receive from a publisher.
    case preferLayer(PreferLayer)

    /// The first message on a socket: the participant token and who the client is.
    public struct Join: Codable, Sendable, Hashable {
        public var token: String
        public var client: ClientDescription?
        public init(token: String, client: ClientDescription? = nil) {
            self.token = token
            self.client = client
        }
    }

    /// Start publishing, or change the set of streams while publishing.
    public struct Publish: Codable, Sendable, Hashable {
        public var requestId: String
        public var streams: [StreamDescriptor]
        public init(requestId: String, streams: [StreamDescriptor]) {
            self.requestId = requestId
            self.streams = streams
        }
    }

    public struct Unpublish: Codable, Sendable, Hashable {
        public var requestId: String
        public init(requestId: String) { self.requestId = requestId }
    }

    /// Mute or unmute one of the local participant's published streams.
    public struct Mute: Codable, Sendable, Hashable {
        public var streamId: String
        public var muted: Bool
        public init(streamId: String, muted: Bool) {
            self.streamId = streamId
            self.muted = muted
        }
    }

    /// Ask for (or, with `none`, drop) the streams of one publisher.
    public struct Subscribe: Codable, Sendable, Hashable {
        public var requestId: String
        public var participantId: String
        public var subscribeType: SubscribeType
        public init(requestId: String, participantId: String, subscribeType: SubscribeType) {
            self.requestId = requestId
            self.participantId = participantId
            self.subscribeType = subscribeType
        }
    }

    /// The simulcast layer (`rid`) wanted from `participantId` on this participant's subscribe
    /// connections; nil for the highest available. The switch happens at that layer's next keyframe.
    public struct PreferLayer: Codable, Sendable, Hashable {
        public var participantId: String
        public var rid: String?
        public init(participantId: String, rid: String?) {
            self.participantId = participantId
            self.rid = rid
        }
    }

    public struct SdpOffer: Codable, Sendable, Hashable {
        public enum Purpose: String, Codable, Sendable, Hashable { case publish, subscribe }
        public var requestId: String
        public var purpose: Purpose
        /// The publisher to receive from, when `purpose` is `subscribe`.
        public var participantId: String?
        public var sdp: String
        public init(requestId: String, purpose: Purpose, participantId: String? = nil, sdp: String) {
            self.requestId = requestId
            self.purpose = purpose
            self.participantId = participantId
            self.sdp = sdp
        }
    }
}

/// Free-form facts about the client, reported in GetParticipant.
public struct ClientDescription: Codable, Sendable, Hashable {
    public var sdkVersion: String?
    public var osName: String?
    public var osVersion: String?
    public init(sdkVersion: String? = nil, osName: String? = nil, osVersion: String? = nil) {
        self.sdkVersion = sdkVersion
        self.osName = osName
        self.osVersion = osVersion
    }
}

/// A keep-alive probe; the other side answers with the same nonce.
public struct Ping: Codable, Sendable, Hashable {
    public var nonce: Int
    public init(nonce: Int) { self.nonce = nonce }
}

extension ClientMessage {
    /// The client-chosen id a request's answer carries (1–64 characters), for the messages that have one.
    public var requestId: String? {
        switch self {
        case .publish(let m): m.requestId
        case .unpublish(let m): m.requestId
        case .subscribe(let m): m.requestId
        case .sdpOffer(let m): m.requestId
        case .join, .mute, .ping, .leave, .preferLayer: nil
        }
    }
}

extension ClientMessage: Codable {
    public var type: String {
        switch self {
        case .join: "join"
        case .publish: "publish"
        case .unpublish: "unpublish"
        case .mute: "mute"
        case .subscribe: "subscribe"
        case .ping: "ping"
        case .leave: "leave"
        case .sdpOffer: "sdpOffer"
        case .preferLayer: "preferLayer"
        }
    }

    public init(from decoder: any Decoder) throws {
        let type = try Envelope.decodeType(from: decoder)
        switch type {
        case "join": self = .join(try Join(from: decoder))
        case "publish": self = .publish(try Publish(from: decoder))
        case "unpublish": self = .unpublish(try Unpublish(from: decoder))
        case "mute": self = .mute(try Mute(from: decoder))
        case "subscribe": self = .subscribe(try Subscribe(from: decoder))
        case "ping": self = .ping(try Ping(from: decoder))
        case "leave": self = .leave
        case "sdpOffer": self = .sdpOffer(try SdpOffer(from: decoder))
        case "preferLayer": self = .preferLayer(try PreferLayer(from: decoder))
        default: throw Envelope.unknownType(type, decoder: decoder)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try Envelope.encode(type: type, to: encoder)
        switch self {
        case .join(let m): try m.encode(to: encoder)
        case .publish(let m): try m.encode(to: encoder)
        case .unpublish(let m): try m.encode(to: encoder)
        case .mute(let m): try m.encode(to: encoder)
        case .subscribe(let m): try m.encode(to: encoder)
        case .ping(let m): try m.encode(to: encoder)
        case .leave: break
        case .sdpOffer(let m): try m.encode(to: encoder)
        case .preferLayer(let m): try m.encode(to: encoder)
        }
    }
}
