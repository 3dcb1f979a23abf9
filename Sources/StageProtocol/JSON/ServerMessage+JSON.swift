/// The signaling fast path for server messages: the same JSON as the `Codable` conformance,
/// without going through `Decoder`/`Encoder` (see `SignalCodec`).
extension ServerMessage {
    init(fastJSON text: String) throws(JSONFastPathDeclined) {
        let json = try FastPathJSON.parse(text)
        guard case .object = json, try json.int("v") == ProtocolVersion.major else { throw JSONFastPathDeclined() }
        switch try json.string("type") {
        case "joined": self = .joined(try Joined(json: json))
        case "participantJoined": self = .participantJoined(try PublisherDescriptor(json: json))
        case "participantLeft": self = .participantLeft(try ParticipantLeft(json: json))
        case "streamsChanged": self = .streamsChanged(try StreamsChanged(json: json))
        case "muteChanged": self = .muteChanged(try StreamsChanged(json: json))
        case "publishState": self = .publishState(try PublishState(json: json))
        case "subscribeState": self = .subscribeState(try SubscribeState(json: json))
        case "error": self = .error(try SignalError(json: json))
        case "disconnect": self = .disconnect(try Disconnect(json: json))
        case "pong": self = .pong(try Ping(json: json))
        case "sdpAnswer": self = .sdpAnswer(try SdpAnswer(json: json))
        case "publishLayers": self = .publishLayers(try PublishLayers(json: json))
        case "downlinkEstimate": self = .downlinkEstimate(try DownlinkEstimate(json: json))
        default: throw JSONFastPathDeclined()
        }
    }

    /// The message's members, then `type` and `v`: every member key sorts before "type".
    var fastJSON: String {
        var writer = JSONWriter()
        writer.beginObject()
        switch self {
        case .joined(let m): m.writeMembers(to: &writer)
        case .participantJoined(let m): m.writeMembers(to: &writer)
        case .participantLeft(let m): m.writeMembers(to: &writer)
        case .streamsChanged(let m), .muteChanged(let m): m.writeMembers(to: &writer)
        case .publishState(let m): m.writeMembers(to: &writer)
        case .subscribeState(let m): m.writeMembers(to: &writer)
        case .error(let m): m.writeMembers(to: &writer)
        case .disconnect(let m): m.writeMembers(to: &writer)
        case .pong(let m): m.writeMembers(to: &writer)
        case .sdpAnswer(let m): m.writeMembers(to: &writer)
        case .publishLayers(let m): m.writeMembers(to: &writer)
        case .downlinkEstimate(let m): m.writeMembers(to: &writer)
        }
        writer.key("type"); writer.string(type)
        writer.key("v"); writer.int(ProtocolVersion.major)
        writer.endObject()
        return writer.text
    }
}

extension ServerMessage.Joined: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        self.init(sessionId: try json.string("sessionId"), participant: try ParticipantDescriptor(json: try json.object("participant")),
                  publishers: try PublisherDescriptor.list(try json.array("publishers")),
                  pingIntervalSeconds: try json.int("pingIntervalSeconds"))
    }

    func writeMembers(to writer: inout JSONWriter) {
        writer.key("participant"); participant.writeObject(to: &writer)
        writer.key("pingIntervalSeconds"); writer.int(pingIntervalSeconds)
        writer.key("publishers"); writer.array(publishers) { $1.writeObject(to: &$0) }
        writer.key("sessionId"); writer.string(sessionId)
    }
}

extension ServerMessage.ParticipantLeft: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        self.init(participantId: try json.string("participantId"), reason: try json.value("reason", as: LeaveReason.self))
    }

    func writeMembers(to writer: inout JSONWriter) {
        writer.key("participantId"); writer.string(participantId)
        writer.key("reason"); writer.string(reason.rawValue)
    }
}

extension ServerMessage.StreamsChanged: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        self.init(participantId: try json.string("participantId"), streams: try StreamDescriptor.list(try json.array("streams")))
    }

    func writeMembers(to writer: inout JSONWriter) {
        writer.key("participantId"); writer.string(participantId)
        writer.key("streams"); writer.array(streams) { $1.writeObject(to: &$0) }
    }
}

extension ServerMessage.PublishState: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        self.init(requestId: try json.optionalString("requestId"), state: try json.value("state", as: State.self),
                  streams: try StreamDescriptor.list(try json.array("streams")))
    }

    func writeMembers(to writer: inout JSONWriter) {
        if let requestId { writer.key("requestId"); writer.string(requestId) }
        writer.key("state"); writer.string(state.rawValue)
        writer.key("streams"); writer.array(streams) { $1.writeObject(to: &$0) }
    }
}

extension ServerMessage.SubscribeState: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        self.init(requestId: try json.optionalString("requestId"), participantId: try json.string("participantId"),
                  subscribeType: try json.value("subscribeType", as: SubscribeType.self), state: try json.value("state", as: State.self),
                  streams: try StreamDescriptor.list(try json.array("streams")))
    }

    func writeMembers(to writer: inout JSONWriter) {
        writer.key("participantId"); writer.string(participantId)
        if let requestId { writer.key("requestId"); writer.string(requestId) }
        writer.key("state"); writer.string(state.rawValue)
        writer.key("streams"); writer.array(streams) { $1.writeObject(to: &$0) }
        writer.key("subscribeType"); writer.string(subscribeType.rawValue)
    }
}

extension ServerMessage.SignalError: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        self.init(code: try json.value("code", as: SignalErrorCode.self), message: try json.string("message"),
                  requestId: try json.optionalString("requestId"))
    }

    func writeMembers(to writer: inout JSONWriter) {
        writer.key("code"); writer.int(code.rawValue)
        writer.key("message"); writer.string(message)
        if let requestId { writer.key("requestId"); writer.string(requestId) }
    }
}

extension ServerMessage.Disconnect: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        self.init(reason: try json.value("reason", as: DisconnectReason.self), message: try json.string("message"))
    }

    func writeMembers(to writer: inout JSONWriter) {
        writer.key("message"); writer.string(message)
        writer.key("reason"); writer.string(reason.rawValue)
    }
}

extension ServerMessage.SdpAnswer: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        self.init(requestId: try json.string("requestId"), sdp: try json.string("sdp"))
    }

    func writeMembers(to writer: inout JSONWriter) {
        writer.key("requestId"); writer.string(requestId)
        writer.key("sdp"); writer.string(sdp)
    }
}
