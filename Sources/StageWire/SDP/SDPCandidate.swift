/// An ICE candidate, `a=candidate:` (RFC 8839 §5.1):
///
/// ```
/// candidate-attribute = "candidate" ":" foundation SP component-id SP transport SP priority SP
///                       connection-address SP port SP cand-type
///                       [SP rel-addr] [SP rel-port] *(SP cand-extension)
/// cand-type           = "typ" SP ("host" / "srflx" / "prflx" / "relay" / token)
/// ```
///
/// The address is kept as text: it may be an IP address or an mDNS name (`<uuid>.local`).
public struct SDPCandidate: SDPAttributeValue, CustomStringConvertible {
    public static let attributeName = "candidate"

    /// 1–32 ice-chars identifying candidates of the same base and server.
    public var foundation: String
    /// 1 for RTP, 2 for RTCP; always 1 with rtcp-mux.
    public var component: UInt16
    /// `UDP` (any case) or `TCP` (RFC 6544).
    public var transport: String
    public var priority: UInt32
    public var address: String
    public var port: UInt16
    /// `host`, `srflx`, `prflx`, `relay`, or an extension type.
    public var type: String
    public var relatedAddress: String?
    public var relatedPort: UInt16?
    /// Extension name/value pairs in order (`generation 0`, `ufrag abcd`, `network-id 1`, `tcptype passive`).
    public var extensions: [SDPParameter]

    public init(
        foundation: String, component: UInt16 = 1, transport: String = "udp", priority: UInt32,
        address: String, port: UInt16, type: String = "host", relatedAddress: String? = nil,
        relatedPort: UInt16? = nil, extensions: [SDPParameter] = []
    ) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.type = type
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.extensions = extensions
    }

    /// Parses the value after `a=candidate:`.
    public init(sdpValue: Substring) throws(SDPValueError) {
        let fields = sdpValue.sdpFields
        guard fields.count >= 8 else {
            throw SDPValueError("candidate needs foundation component transport priority address port typ type (RFC 8839 §5.1)")
        }
        guard fields[6] == "typ" else {
            throw SDPValueError("candidate's seventh field must be \"typ\" (RFC 8839 §5.1)")
        }
        guard fields[0].utf8.count <= 32 else {
            throw SDPValueError("candidate foundation is 1 to 32 characters (RFC 8839 §5.1)")
        }
        foundation = String(fields[0])
        component = try sdpRequireDecimal(fields[1], as: UInt16.self, "candidate component-id must be a number (RFC 8839 §5.1)")
        guard (1...256).contains(component) else {
            throw SDPValueError("candidate component-id must be 1 to 256 (RFC 8445 §5.1.1.1)")
        }
        transport = String(fields[2])
        priority = try sdpRequireDecimal(fields[3], as: UInt32.self, "candidate priority must be a number up to 2^32-1 (RFC 8839 §5.1)")
        address = String(fields[4])
        port = try sdpRequireDecimal(fields[5], as: UInt16.self, "candidate port must be a number 0 to 65535 (RFC 8839 §5.1)")
        type = String(fields[7])
        relatedAddress = nil
        relatedPort = nil
        extensions = []
        var index = 8
        while index < fields.count {
            guard index + 1 < fields.count else {
                throw SDPValueError("candidate extension \"\(fields[index])\" has no value (RFC 8839 §5.1)")
            }
            let name = fields[index], value = fields[index + 1]
            switch name {
            case "raddr" where relatedAddress == nil:
                relatedAddress = String(value)
            case "rport" where relatedPort == nil:
                relatedPort = try sdpRequireDecimal(value, as: UInt16.self, "candidate rport must be a number 0 to 65535 (RFC 8839 §5.1)")
            default:
                extensions.append(SDPParameter(name: String(name), value: String(value)))
            }
            index += 2
        }
    }

    /// Parses a candidate as signaling carries it: with or without `a=` and `candidate:`.
    public init(candidateLine line: String) throws(SDPValueError) {
        var text = line[...]
        if text.hasPrefix("a=") { text = text.dropFirst(2) }
        if text.hasPrefix("candidate:") { text = text.dropFirst("candidate:".count) }
        try self.init(sdpValue: text)
    }

    /// The value of a named extension, e.g. `ufrag` or `generation`.
    public func extensionValue(_ name: String) -> String? { extensions[parameter: name] }

    public var sdpValue: String {
        var text = "\(foundation) \(component) \(transport) \(priority) \(address) \(port) typ \(type)"
        if let relatedAddress { text += " raddr \(relatedAddress)" }
        if let relatedPort { text += " rport \(relatedPort)" }
        for pair in extensions { text += " \(pair.name) \(pair.value ?? "")" }
        return text
    }

    /// `candidate:<value>`, the form trickle ICE signals.
    public var description: String { "candidate:" + sdpValue }
}
