import Testing
import StageWire

@Suite struct IPAddressScopeTests {
    @Test("loopback and link-local scopes (RFC 1122 §3.2.1.3, RFC 4291 §2.5.3, §2.5.6, RFC 3927)", arguments: [
        ("127.0.0.1", true, false), ("127.255.0.9", true, false), ("::1", true, false),
        ("169.254.10.1", false, true), ("fe80::1", false, true), ("febf::1", false, true),
        ("192.0.2.1", false, false), ("2001:db8::1", false, false), ("fec0::1", false, false), ("::", false, false),
    ])
    func scopes(_ text: String, _ loopback: Bool, _ linkLocal: Bool) throws {
        let address = try #require(IPAddress(text))
        #expect(address.isLoopback == loopback)
        #expect(address.isLinkLocal == linkLocal)
    }
}
