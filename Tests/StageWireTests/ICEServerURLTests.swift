import Testing
import StageWire

/// ICE server URIs: RFC 7064 §3.1 (`stun:`), RFC 7065 §3.1 (`turn:` with `?transport=`).
@Suite struct ICEServerURLTests {
    @Test("RFC 7064/7065 §3.1: scheme, host, port and transport", arguments: [
        ("stun:stun.example.org", ICEServerURL(scheme: .stun, host: "stun.example.org")),
        ("stun:192.0.2.1:19302", ICEServerURL(scheme: .stun, host: "192.0.2.1", port: 19302)),
        ("STUN:Stun.Example.org", ICEServerURL(scheme: .stun, host: "Stun.Example.org")),
        ("turn:turn.example.org", ICEServerURL(scheme: .turn, host: "turn.example.org")),
        ("turn:203.0.113.30:3478?transport=tcp", ICEServerURL(scheme: .turn, host: "203.0.113.30", transport: .tcp)),
        ("turn:[2001:db8::1]:5000?transport=UDP", ICEServerURL(scheme: .turn, host: "2001:db8::1", port: 5000, transport: .udp)),
        ("turn:[2001:db8::1]", ICEServerURL(scheme: .turn, host: "2001:db8::1")),
    ])
    func parses(_ text: String, _ expected: ICEServerURL) throws {
        #expect(try ICEServerURL(parsing: text) == expected)
    }

    @Test("a parsed URL prints in canonical form and parses back the same")
    func roundTrip() throws {
        for text in ["stun:192.0.2.1:3478", "turn:[2001:db8::1]:3478?transport=tcp", "turn:turn.example.org:443"] {
            let url = try ICEServerURL(parsing: text)
            #expect(url.description == text)
            #expect(try ICEServerURL(parsing: url.description) == url)
        }
    }

    @Test("malformed URLs are refused with the rule they break", arguments: [
        ("", "no scheme"),
        ("stun.example.org", "no scheme"),
        ("http://example.org", "unknown scheme"),
        ("turns:turn.example.org", "not supported"),
        ("stuns:stun.example.org", "not supported"),
        ("stun://stun.example.org", "no \"//\""),
        ("stun:", "the host is empty"),
        ("turn::3478", "the host is empty"),
        ("stun:host:0", "port"),
        ("stun:host:65536", "port"),
        ("stun:host:12a", "port"),
        ("stun:host:", "port"),
        ("turn:2001:db8::1", "port"),
        ("turn:[2001:db8::1", "closing"),
        ("turn:[192.0.2.1]", "not an IPv6 address"),
        ("turn:[2001:db8::1]x", "unexpected"),
        ("turn:host name", "character"),
        ("turn:host?transport=sctp", "expected udp or tcp"),
        ("turn:host?foo=bar", "only transport"),
        ("turn:host?transport", "only transport"),
        ("stun:host?transport=udp", "stun: takes no query"),
        (String(repeating: "a", count: 1100), "longer than"),
        ("turn:" + String(repeating: "a", count: 254), "longer than 253"),
    ])
    func refuses(_ text: String, _ reason: String) {
        do {
            _ = try ICEServerURL(parsing: text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.reason.contains(reason), "\(error.reason)")
        }
    }
}
