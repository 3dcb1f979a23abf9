/// One `<type>=<value>` line of a session description (RFC 8866 §5), kept verbatim.
///
/// Session and media descriptions hold their lines in order as these values, so lines this
/// module does not interpret (`b=`, `i=`, unknown attributes) survive a parse and serialize
/// unchanged; typed views parse a line only when asked.
public struct SDPLine: Hashable, Sendable, CustomStringConvertible {
    /// The one-letter type: `v`, `o`, `s`, `c`, `t`, `m`, `a`, `b`, …
    public var type: Character
    /// Everything after `=`, without the line ending.
    public var value: String

    public init(type: Character, value: String) {
        self.type = type
        self.value = value
    }

    /// An `a=` line: `a=<name>` (a property attribute) or `a=<name>:<value>`.
    public static func attribute(_ name: String, _ value: String? = nil) -> SDPLine {
        SDPLine(type: "a", value: value.map { "\(name):\($0)" } ?? name)
    }

    /// An `a=` line holding a typed value, e.g. `.attribute(candidate)`.
    public static func attribute<Value: SDPAttributeValue>(_ value: Value) -> SDPLine {
        .attribute(Value.attributeName, value.sdpValue)
    }

    /// For `a=` lines, the attribute name: the text before the first `:`.
    public var attributeName: Substring? {
        guard type == "a" else { return nil }
        return value.firstIndex(of: ":").map { value[..<$0] } ?? value[...]
    }

    /// For `a=<name>:<value>` lines, the text after the first `:`; `nil` for other lines.
    public var attributeValue: Substring? {
        guard type == "a", let colon = value.firstIndex(of: ":") else { return nil }
        return value[value.index(after: colon)...]
    }

    /// Whether this is `a=<name>` or `a=<name>:…`.
    public func isAttribute(_ name: String) -> Bool { attributeName.map { $0 == name } ?? false }

    /// `<type>=<value>`, without line ending.
    public var description: String { "\(type)=\(value)" }
}

/// A typed attribute value: how it is named after `a=`, read from, and written back to text.
public protocol SDPAttributeValue: Hashable, Sendable {
    /// The attribute name, e.g. `rtpmap`.
    static var attributeName: String { get }
    /// Parses the text after `a=<name>:`.
    init(sdpValue: Substring) throws(SDPValueError)
    /// The text to write after `a=<name>:`.
    var sdpValue: String { get }
}

extension SDPAttributeValue {
    /// Parses the text after `a=<name>:`, e.g. a trickled candidate from signaling.
    public init(sdpValue: String) throws(SDPValueError) {
        try self.init(sdpValue: sdpValue[...])
    }
}
