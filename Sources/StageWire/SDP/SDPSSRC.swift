/// `a=ssrc:<ssrc> <attribute>[:<value>]` (RFC 5576 §4.1): a source-level attribute such as
/// `cname:…` or `msid:<stream> <track>`.
public struct SDPSSRCAttribute: SDPAttributeValue {
    public static let attributeName = "ssrc"

    public var ssrc: UInt32
    public var attribute: String
    /// Everything after the attribute's `:`, spaces included; `nil` for a property attribute.
    public var value: String?

    public init(ssrc: UInt32, attribute: String, value: String? = nil) {
        self.ssrc = ssrc
        self.attribute = attribute
        self.value = value
    }

    public init(sdpValue: Substring) throws(SDPValueError) {
        guard let space = sdpValue.firstIndex(of: " ") else {
            throw SDPValueError("ssrc needs <ssrc-id> <attribute>[:<value>] (RFC 5576 §4.1)")
        }
        ssrc = try sdpRequireDecimal(sdpValue[..<space], as: UInt32.self, "ssrc-id must be a number up to 2^32-1 (RFC 5576 §4.1)")
        let rest = sdpValue[sdpValue.index(after: space)...]
        guard !rest.isEmpty, rest.first != " " else {
            throw SDPValueError("ssrc needs an attribute after the ssrc-id (RFC 5576 §4.1)")
        }
        if let colon = rest.firstIndex(of: ":") {
            attribute = String(rest[..<colon])
            value = String(rest[rest.index(after: colon)...])
        } else {
            attribute = String(rest)
            value = nil
        }
    }

    public var sdpValue: String { "\(ssrc) \(attribute)" + (value.map { ":\($0)" } ?? "") }
}

/// `a=ssrc-group:<semantics> <ssrc> …` (RFC 5576 §4.2): `FID` pairs a media SSRC with its RTX
/// SSRC (RFC 4588 §8.7); `SIM` lists simulcast layers (legacy, without rids).
public struct SDPSSRCGroup: SDPAttributeValue {
    public static let attributeName = "ssrc-group"

    public var semantics: String
    public var ssrcs: [UInt32]

    public init(semantics: String, ssrcs: [UInt32]) {
        self.semantics = semantics
        self.ssrcs = ssrcs
    }

    public init(sdpValue: Substring) throws(SDPValueError) {
        let fields = sdpValue.sdpFields
        guard let first = fields.first else {
            throw SDPValueError("ssrc-group needs <semantics> <ssrc-id> … (RFC 5576 §4.2)")
        }
        semantics = String(first)
        ssrcs = []
        for field in fields.dropFirst() {
            ssrcs.append(try sdpRequireDecimal(field, as: UInt32.self, "ssrc-group ssrc-id must be a number up to 2^32-1 (RFC 5576 §4.2)"))
        }
    }

    public var sdpValue: String { ([semantics] + ssrcs.map(String.init)).joined(separator: " ") }
}
