/// A run of SDP lines that attributes apply to: the session level or one media section.
///
/// Generic reads and edits of `a=` lines live here; typed views of the attributes WebRTC uses are
/// in `SDPAttributeContainer+ICE.swift` and `SDPAttributeContainer+RTP.swift`. A typed view
/// skips lines that do not parse (parsing a description already rejected malformed known
/// attributes; only lines edited by hand can be invalid).
public protocol SDPAttributeContainer {
    /// The lines in order, verbatim.
    var lines: [SDPLine] { get set }
}

extension SDPAttributeContainer {
    /// Whether an attribute `a=<name>` or `a=<name>:…` is present.
    public func hasAttribute(_ name: String) -> Bool {
        lines.contains { $0.isAttribute(name) }
    }

    /// The value of the first `a=<name>:<value>`; `nil` when absent or valueless.
    public func attributeValue(_ name: String) -> String? {
        lines.first { $0.isAttribute(name) }?.attributeValue.map(String.init)
    }

    /// The values of every `a=<name>:<value>`, in order.
    public func attributeValues(_ name: String) -> [String] {
        lines.compactMap { $0.isAttribute(name) ? $0.attributeValue.map(String.init) : nil }
    }

    /// Every attribute of a typed kind that parses, in order.
    public func values<Value: SDPAttributeValue>(_ type: Value.Type) -> [Value] {
        lines.compactMap { line in
            guard line.isAttribute(Value.attributeName), let text = line.attributeValue else { return nil }
            return try? Value(sdpValue: text)
        }
    }

    /// The first attribute of a typed kind that parses.
    public func value<Value: SDPAttributeValue>(_ type: Value.Type) -> Value? {
        for line in lines where line.isAttribute(Value.attributeName) {
            if let text = line.attributeValue, let value = try? Value(sdpValue: text) { return value }
        }
        return nil
    }

    /// Appends `a=<name>[:<value>]` after the last line.
    public mutating func appendAttribute(_ name: String, _ value: String? = nil) {
        lines.append(.attribute(name, value))
    }

    /// Appends a typed attribute.
    public mutating func append<Value: SDPAttributeValue>(_ value: Value) {
        lines.append(.attribute(value))
    }

    /// Removes every `a=<name>` and `a=<name>:…` line.
    public mutating func removeAttributes(named name: String) {
        lines.removeAll { $0.isAttribute(name) }
    }

    /// Replaces the first `a=<name>…` in place (removing later ones) or appends it.
    public mutating func setAttribute(_ name: String, _ value: String? = nil) {
        guard let index = lines.firstIndex(where: { $0.isAttribute(name) }) else {
            appendAttribute(name, value)
            return
        }
        lines[index] = .attribute(name, value)
        var seen = false
        lines.removeAll { line in
            guard line.isAttribute(name) else { return false }
            defer { seen = true }
            return seen
        }
    }

    /// The first `c=` line (RFC 8866 §5.7).
    public var connection: SDPConnection? {
        lines.first { $0.type == "c" }.flatMap { try? SDPConnection(sdpValue: $0.value[...]) }
    }
}
