import StageWire

/// A type the signaling fast path reads from a parsed object and writes as JSON members.
/// Members are written in sorted key order, without the braces, so a message can put its
/// envelope keys (`type`, `v`) after them in the same object.
protocol FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined)
    func writeMembers(to writer: inout JSONWriter)
}

extension FastJSONMembers {
    /// Reads each element of an array of objects.
    static func list(_ elements: [FastPathJSON]) throws(JSONFastPathDeclined) -> [Self] {
        var list: [Self] = []
        list.reserveCapacity(elements.count)
        for element in elements {
            guard case .object = element else { throw JSONFastPathDeclined() }
            list.append(try Self(json: element))
        }
        return list
    }

    func writeObject(to writer: inout JSONWriter) {
        writer.beginObject()
        writeMembers(to: &writer)
        writer.endObject()
    }
}

extension StreamDescriptor: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        self.init(streamId: try json.string("streamId"), kind: try json.value("kind", as: MediaKind.self), muted: try json.bool("muted"))
    }

    func writeMembers(to writer: inout JSONWriter) {
        writer.key("kind"); writer.string(kind.rawValue)
        writer.key("muted"); writer.bool(muted)
        writer.key("streamId"); writer.string(streamId)
    }
}

extension Capabilities: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        self.init(allowPublish: try json.bool("allow_publish"), allowSubscribe: try json.bool("allow_subscribe"))
    }

    func writeMembers(to writer: inout JSONWriter) {
        writer.key("allow_publish"); writer.bool(allowPublish)
        writer.key("allow_subscribe"); writer.bool(allowSubscribe)
    }
}

extension ParticipantDescriptor: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        self.init(participantId: try json.string("participantId"), userId: try json.string("userId"),
                  attributes: try json.stringDictionary("attributes"), capabilities: try Capabilities(json: try json.object("capabilities")))
    }

    func writeMembers(to writer: inout JSONWriter) {
        writer.key("attributes"); writer.stringDictionary(attributes)
        writer.key("capabilities"); capabilities.writeObject(to: &writer)
        writer.key("participantId"); writer.string(participantId)
        writer.key("userId"); writer.string(userId)
    }
}

extension PublisherDescriptor: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        self.init(participant: try ParticipantDescriptor(json: try json.object("participant")),
                  streams: try StreamDescriptor.list(try json.array("streams")))
    }

    func writeMembers(to writer: inout JSONWriter) {
        writer.key("participant"); participant.writeObject(to: &writer)
        writer.key("streams"); writer.array(streams) { $1.writeObject(to: &$0) }
    }
}

extension Ping: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) { self.init(nonce: try json.int("nonce")) }

    func writeMembers(to writer: inout JSONWriter) { writer.key("nonce"); writer.int(nonce) }
}

extension ClientDescription: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        self.init(sdkVersion: try json.optionalString("sdkVersion"), osName: try json.optionalString("osName"),
                  osVersion: try json.optionalString("osVersion"))
    }

    func writeMembers(to writer: inout JSONWriter) {
        if let osName { writer.key("osName"); writer.string(osName) }
        if let osVersion { writer.key("osVersion"); writer.string(osVersion) }
        if let sdkVersion { writer.key("sdkVersion"); writer.string(sdkVersion) }
    }
}

extension ServerMessage.PublishLayers: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        var rids: [String] = []
        for element in try json.array("rids") { rids.append(try element.asString()) }
        self.init(streamId: try json.string("streamId"), rids: rids)
    }

    func writeMembers(to writer: inout JSONWriter) {
        writer.key("rids"); writer.array(rids) { $0.string($1) }
        writer.key("streamId"); writer.string(streamId)
    }
}

extension ServerMessage.DownlinkEstimate: FastJSONMembers {
    init(json: FastPathJSON) throws(JSONFastPathDeclined) {
        self.init(participantId: try json.string("participantId"), bitsPerSecond: try json.int("bitsPerSecond"))
    }

    func writeMembers(to writer: inout JSONWriter) {
        writer.key("bitsPerSecond"); writer.int(bitsPerSecond)
        writer.key("participantId"); writer.string(participantId)
    }
}
