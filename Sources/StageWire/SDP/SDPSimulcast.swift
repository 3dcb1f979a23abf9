/// `a=rid:<rid-id> <send|recv> [<restrictions>]` (RFC 8851 §10): names one RTP stream of a
/// media section, e.g. one simulcast layer (`a=rid:h send`), with optional restrictions
/// (`pt=96,97;max-width=1280;max-height=720`).
public struct SDPRID: SDPAttributeValue {
    public static let attributeName = "rid"

    public enum Direction: String, Hashable, Sendable {
        case send, recv
    }

    public var id: String
    public var direction: Direction
    /// Restrictions in order; `pt` holds a comma-separated payload type list.
    public var restrictions: [SDPParameter]

    public init(id: String, direction: Direction, restrictions: [SDPParameter] = []) {
        self.id = id
        self.direction = direction
        self.restrictions = restrictions
    }

    public init(sdpValue: Substring) throws(SDPValueError) {
        let fields = sdpValue.sdpFields
        guard fields.count == 2 || fields.count == 3 else {
            throw SDPValueError("rid needs <rid-id> <send|recv> [<restrictions>] (RFC 8851 §10)")
        }
        guard isRIDIdentifier(fields[0]) else {
            throw SDPValueError("rid-id must be letters, digits, '-' or '_' (RFC 8851 §10)")
        }
        guard let direction = Direction(rawValue: String(fields[1])) else {
            throw SDPValueError("rid direction must be send or recv (RFC 8851 §10)")
        }
        id = String(fields[0])
        self.direction = direction
        restrictions = fields.count == 3
            ? fields[2].split(separator: ";").map { SDPParameter(parsing: $0) }
            : []
    }

    /// The payload types of a `pt=` restriction (RFC 8851 §4), empty when unrestricted.
    public var payloadTypes: [UInt8] {
        restrictions[parameter: "pt"]?.split(separator: ",").compactMap { sdpDecimal($0, as: UInt8.self) } ?? []
    }

    /// `max-width=` (RFC 8851 §5), in pixels.
    public var maxWidth: UInt32? { restrictions[parameter: "max-width"].flatMap { sdpDecimal($0, as: UInt32.self) } }
    /// `max-height=` (RFC 8851 §5), in pixels.
    public var maxHeight: UInt32? { restrictions[parameter: "max-height"].flatMap { sdpDecimal($0, as: UInt32.self) } }

    public var sdpValue: String {
        var text = "\(id) \(direction.rawValue)"
        if !restrictions.isEmpty { text += " " + restrictions.map(\.description).joined(separator: ";") }
        return text
    }
}

/// `a=simulcast:` (RFC 8853 §5.1): the rids sent and received as simulcast streams.
///
/// ```
/// sc-value     = ( sc-send [SP sc-recv] ) / ( sc-recv [SP sc-send] )
/// sc-send      = %s"send" SP sc-str-list
/// sc-str-list  = sc-alt-list *( ";" sc-alt-list )
/// sc-alt-list  = sc-id *( "," sc-id )
/// sc-id        = [sc-id-paused] rid-id      ; sc-id-paused = "~"
/// ```
///
/// `a=simulcast:send q;h;f` is three streams; `send 1,2;~3` is a stream with alternatives 1 or 2,
/// and a paused stream 3.
public struct SDPSimulcast: SDPAttributeValue {
    public static let attributeName = "simulcast"

    /// One rid within a stream's alternatives.
    public struct Identifier: Hashable, Sendable {
        public var rid: String
        /// Written `~rid`: offered but not sent now.
        public var paused: Bool

        public init(rid: String, paused: Bool = false) {
            self.rid = rid
            self.paused = paused
        }
    }

    /// Streams sent, each a list of alternative rids; empty when there is no send list.
    public var send: [[Identifier]]
    /// Streams received, as `send`.
    public var receive: [[Identifier]]
    /// Whether `recv` was written first.
    public var receiveFirst: Bool

    public init(send: [[Identifier]] = [], receive: [[Identifier]] = [], receiveFirst: Bool = false) {
        self.send = send
        self.receive = receive
        self.receiveFirst = receiveFirst
    }

    /// One layer per rid, none paused: `SDPSimulcast(sendRIDs: ["q", "h", "f"])`.
    public init(sendRIDs: [String]) {
        self.init(send: sendRIDs.map { [Identifier(rid: $0)] })
    }

    public init(sdpValue: Substring) throws(SDPValueError) {
        let fields = sdpValue.sdpFields
        guard fields.count == 2 || fields.count == 4 else {
            throw SDPValueError("simulcast needs send|recv and a non-empty rid list, once or once each (RFC 8853 §5.1)")
        }
        send = []
        receive = []
        receiveFirst = fields[0] == "recv"
        var seen: Set<Substring> = []
        for index in stride(from: 0, to: fields.count, by: 2) {
            let direction = fields[index]
            guard direction == "send" || direction == "recv", seen.insert(direction).inserted else {
                throw SDPValueError("simulcast direction must be send or recv, each at most once (RFC 8853 §5.1)")
            }
            let list = try Self.parseList(fields[index + 1])
            if direction == "send" { send = list } else { receive = list }
        }
    }

    static func parseList(_ text: Substring) throws(SDPValueError) -> [[Identifier]] {
        var streams: [[Identifier]] = []
        for stream in text.split(separator: ";", omittingEmptySubsequences: false) {
            var alternatives: [Identifier] = []
            for item in stream.split(separator: ",", omittingEmptySubsequences: false) {
                let paused = item.hasPrefix("~")
                let rid = paused ? item.dropFirst() : item
                guard isRIDIdentifier(rid) else {
                    throw SDPValueError("simulcast rid list has an empty or invalid rid-id (RFC 8853 §5.1)")
                }
                alternatives.append(Identifier(rid: String(rid), paused: paused))
            }
            streams.append(alternatives)
        }
        return streams
    }

    /// Every rid sent, first alternative of each stream first.
    public var sendRIDs: [String] { send.flatMap { $0.map(\.rid) } }
    /// Every rid received.
    public var receiveRIDs: [String] { receive.flatMap { $0.map(\.rid) } }

    public var sdpValue: String {
        func list(_ streams: [[Identifier]]) -> String {
            streams.map { $0.map { ($0.paused ? "~" : "") + $0.rid }.joined(separator: ",") }.joined(separator: ";")
        }
        var parts: [String] = []
        if !send.isEmpty { parts.append("send " + list(send)) }
        if !receive.isEmpty { parts.append("recv " + list(receive)) }
        if receiveFirst { parts.reverse() }
        return parts.joined(separator: " ")
    }
}
