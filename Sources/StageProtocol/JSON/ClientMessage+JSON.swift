/// The signaling fast path for client messages (see `ServerMessage+JSON.swift`).
extension ClientMessage {
    init(fastJSON text: String) throws(JSONFastPathDeclined) {
        let json = try FastPathJSON.parse(text)
        guard case .object = json, try json.int("v") == ProtocolVersion.major else { throw JSONFastPathDeclined() }
        switch try json.string("type") {
        case "join": self = .join(try Join(json: json))
        case "publish": self = .publish(try Publish(json: json))
        case "unpublish": self = .unpublish(try Unpublish(json: json))
        case "mute": self = .mute(try Mute(json: json))
        case "subscribe": self = .subscribe(try Subscribe(json: json))
        case "ping": self = .ping(try Ping(json: json))
        case "leave": self = .leave
        case "sdpOffer": self = .sdpOffer(try SdpOffer(json: json))
        case "preferLayer": self = .preferLayer(try PreferLayer(json: json))
        default: throw JSONFastPathDeclined()
        }
    }

    /// The message's members, then `type` and `v`: every member key sorts before "type".
    var fastJSON: String {
        var writer = JSONWriter()
        writer.beginObject()
        switch self {
        case .join(let m): m.writeMembers(to: &writer)
        case .publish(let m): m.writeMembers(to: &writer)
        case .unpublish(let m): m.writeMembers(to: &writer)
        case .mute(let m): m.writeMembers(to: &writer)
        case .subscribe(let m): m.writeMembers(to: &writer)
        case .ping(let m): m.writeMembers(to: &writer)
        case .leave: break
        case .sdpOffer(let m): m.writeMembers(to: &writer)
        case .preferLayer(let m): m.writeMembers(to: &writer)
        }
        writer.key("type"); writer.string(type)
        writer.key("v"); writer.int(ProtocolVersion.major)
        writer.endObject()
        return writer.text
    }
}

extension ClientMessage.Join: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        var client: ClientDescription?
        if let object = try json.optionalObject("client") { client = try ClientDescription(json: object) }
        self.init(token: try json.string("token"), client: client)
    }

    func writeMembers(to writer: inout JSONWriter) {
        if let client { writer.key("client"); client.writeObject(to: &writer) }
        writer.key("token"); writer.string(token)
    }
}

extension ClientMessage.Publish: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        self.init(requestId: try json.string("requestId"), streams: try StreamDescriptor.list(try json.array("streams")))
    }

    func writeMembers(to writer: inout JSONWriter) {
        writer.key("requestId"); writer.string(requestId)
        writer.key("streams"); writer.array(streams) { $1.writeObject(to: &$0) }
    }
}

extension ClientMessage.Unpublish: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) { self.init(requestId: try json.string("requestId")) }

    func writeMembers(to writer: inout JSONWriter) { writer.key("requestId"); writer.string(requestId) }
}

extension ClientMessage.Mute: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        self.init(streamId: try json.string("streamId"), muted: try json.bool("muted"))
    }

    func writeMembers(to writer: inout JSONWriter) {
        writer.key("muted"); writer.bool(muted)
        writer.key("streamId"); writer.string(streamId)
    }
}

extension ClientMessage.Subscribe: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        self.init(requestId: try json.string("requestId"), participantId: try json.string("participantId"),
                  subscribeType: try json.value("subscribeType", as: SubscribeType.self))
    }

    func writeMembers(to writer: inout JSONWriter) {
        writer.key("participantId"); writer.string(participantId)
        writer.key("requestId"); writer.string(requestId)
        writer.key("subscribeType"); writer.string(subscribeType.rawValue)
    }
}

extension ClientMessage.PreferLayer: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        self.init(participantId: try json.string("participantId"), rid: try json.optionalString("rid"))
    }

    func writeMembers(to writer: inout JSONWriter) {
        writer.key("participantId"); writer.string(participantId)
        if let rid { writer.key("rid"); writer.string(rid) }
    }
}

extension ClientMessage.SdpOffer: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        self.init(requestId: try json.string("requestId"), purpose: try json.value("purpose", as: Purpose.self),
                  participantId: try json.optionalString("participantId"), sdp: try json.string("sdp"))
    }

    func writeMembers(to writer: inout JSONWriter) {
        if let participantId { writer.key("participantId"); writer.string(participantId) }
        writer.key("purpose"); writer.string(purpose.rawValue)
        writer.key("requestId"); writer.string(requestId)
        writer.key("sdp"); writer.string(sdp)
    }
}
