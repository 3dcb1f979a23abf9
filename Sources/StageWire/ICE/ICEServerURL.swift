/// A STUN or TURN server URI as ICE configurations carry them (RFC 7064 §3.1 `stun:`, RFC 7065
/// §3.1 `turn:` with `?transport=udp|tcp`):
///
/// ```
/// stun:stun.example.org            stun:192.0.2.1:3478
/// turn:turn.example.org?transport=tcp   turn:[2001:db8::1]:3478
/// ```
///
/// `stuns:` and `turns:` (TLS) are recognised and refused with a clear error: this client
/// speaks STUN and TURN over UDP and TCP only.
public struct ICEServerURL: Hashable, Sendable, CustomStringConvertible {
    public enum Scheme: String, Sendable, Hashable {
        case stun
        case turn
    }

    public enum Transport: String, Sendable, Hashable {
        case udp
        case tcp
    }

    public var scheme: Scheme
    /// A DNS name or an IP literal (without brackets).
    public var host: String
    public var port: UInt16
    /// For `turn:`, how to reach the server (UDP unless `?transport=tcp`); `stun:` is UDP.
    public var transport: Transport

    /// RFC 7064 §3.2, RFC 7065 §3.2: the default port of `stun:` and `turn:`.
    public static let defaultPort: UInt16 = 3478
    /// Longer URLs are refused before they are looked at.
    public static let maximumLength = 1024

    public init(scheme: Scheme, host: String, port: UInt16 = ICEServerURL.defaultPort, transport: Transport = .udp) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.transport = transport
    }

    /// Parses `stun:host[:port]` or `turn:host[:port][?transport=udp|tcp]`.
    public init(parsing text: String) throws(ICEServerURLError) {
        guard text.utf8.count <= Self.maximumLength else { throw ICEServerURLError("longer than \(Self.maximumLength) bytes") }
        guard let colon = text.firstIndex(of: ":") else {
            throw ICEServerURLError("\"\(text)\" has no scheme: expected stun: or turn: (RFC 7064, RFC 7065)")
        }
        let schemeText = text[..<colon].lowercased()
        switch schemeText {
        case "stun": scheme = .stun
        case "turn": scheme = .turn
        case "stuns", "turns": throw ICEServerURLError("\(schemeText): is not supported (STUN/TURN over TLS); use stun: or turn: with ?transport=tcp")
        default: throw ICEServerURLError("unknown scheme \"\(schemeText)\": expected stun: or turn: (RFC 7064, RFC 7065)")
        }
        var rest = text[text.index(after: colon)...]
        var query: Substring?
        if let question = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        guard !rest.hasPrefix("//") else { throw ICEServerURLError("\"\(text)\": no \"//\" after the scheme (RFC 7064 §3.1)") }
        (host, port) = try Self.hostAndPort(rest)
        transport = .udp
        if let query {
            guard scheme == .turn else { throw ICEServerURLError("stun: takes no query (RFC 7064 §3.1)") }
            transport = try Self.transport(query)
        }
    }

    /// `host`, `host:port`, `[v6]` or `[v6]:port` (RFC 3986 §3.2.2, §3.2.3).
    private static func hostAndPort(_ text: Substring) throws(ICEServerURLError) -> (String, UInt16) {
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw ICEServerURLError("IPv6 host without a closing \"]\"") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw ICEServerURLError("unexpected \"\(after)\" after the IPv6 host") }
                portText = after.dropFirst()
            }
            guard let address = IPAddress(host), !address.isIPv4 else { throw ICEServerURLError("\"\(host)\" in brackets is not an IPv6 address") }
        } else {
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0]
            if parts.count == 2 { portText = parts[1] }
            guard host.utf8.allSatisfy({ isHostByte($0) }) else {
                throw ICEServerURLError("host \"\(host)\" has a character outside letters, digits, \"-\" and \".\" (an IPv6 host goes in brackets)")
            }
        }
        guard !host.isEmpty else { throw ICEServerURLError("the host is empty") }
        guard host.utf8.count <= 253 else { throw ICEServerURLError("the host is longer than 253 characters") }
        var port = defaultPort
        if let portText {
            guard !portText.isEmpty, portText.utf8.count <= 5, portText.utf8.allSatisfy({ (48...57).contains($0) }),
                  let value = UInt16(portText), value > 0 else {
                throw ICEServerURLError("port \"\(portText)\" is not a number from 1 to 65535")
            }
            port = value
        }
        return (String(host), port)
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        (97...122).contains(byte) || (65...90).contains(byte) || (48...57).contains(byte) || byte == 45 || byte == 46
    }

    /// RFC 7065 §3.1: `transport=udp` or `transport=tcp`, the only query.
    private static func transport(_ query: Substring) throws(ICEServerURLError) -> Transport {
        let parts = query.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].lowercased() == "transport" else {
            throw ICEServerURLError("query \"\(query)\": only transport=udp or transport=tcp is defined (RFC 7065 §3.1)")
        }
        guard let transport = Transport(rawValue: parts[1].lowercased()) else {
            throw ICEServerURLError("transport \"\(parts[1])\": expected udp or tcp (RFC 7065 §3.1)")
        }
        return transport
    }

    public var description: String {
        let hostText = host.contains(":") ? "[\(host)]" : host
        let query = scheme == .turn && transport == .tcp ? "?transport=tcp" : ""
        return "\(scheme.rawValue):\(hostText):\(port)\(query)"
    }
}

/// Why an ICE server URL was refused, in words that name the rule.
public struct ICEServerURLError: Error, Hashable, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { "ICE server URL: \(reason)" }
}
