import Foundation
@testable import StageServer
import Testing

/// The addresses put in ICE candidates: explicit `--public-ip` values, else the `--host`
/// address, else (wildcard) every interface address, non-loopback first, with the literal host
/// of a `--public-url` given on the command line first unless it is loopback.
struct AdvertisedAddressesTests {
    static let interfaces = ["127.0.0.1", "192.0.2.2", "::1", "fe80::fc:ff:fe00:1", "fd00::2", "febf::1", "10.0.0.5"]
        .map(AdvertisedAddresses.Interface.init)

    func resolve(publicIPs: [String] = [], host: String = "0.0.0.0", publicURL: String? = nil,
                 interfaces: [AdvertisedAddresses.Interface] = Self.interfaces) throws -> [String] {
        var configuration = ServerConfiguration(host: host, httpPort: 8080, dataDirectory: URL(fileURLWithPath: "/tmp"),
                                                publicURL: publicURL, publicIPs: publicIPs)
        configuration.tls = nil
        return try configuration.advertisedAddresses(interfaces: { interfaces })
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var publicIPs: [String] = []
        var host = "0.0.0.0"
        var publicURL: String?
        var expected: [String]
        var testDescription: String { name }
    }

    @Test("the advertised list", arguments: [
        // No --public-url: the default one's 127.0.0.1 is not put first (it was until a remote
        // client was seen trying loopback first); loopback ranks last like any interface's.
        Case(name: "wildcard, no --public-url: non-loopback v4, non-loopback v6, loopback v4, loopback v6; link-local left out",
             expected: ["192.0.2.2", "10.0.0.5", "fd00::2", "127.0.0.1", "::1"]),
        Case(name: "wildcard with a loopback --public-url: loopback is not put first", publicURL: "http://127.0.0.1:8080",
             expected: ["192.0.2.2", "10.0.0.5", "fd00::2", "127.0.0.1", "::1"]),
        Case(name: "wildcard with an IPv6 loopback --public-url", publicURL: "http://[::1]:8080",
             expected: ["192.0.2.2", "10.0.0.5", "fd00::2", "127.0.0.1", "::1"]),
        Case(name: "wildcard :: is a wildcard too", host: "::", publicURL: "http://10.0.0.5:8080",
             expected: ["10.0.0.5", "192.0.2.2", "fd00::2", "127.0.0.1", "::1"]),
        Case(name: "wildcard with an IPv6 URL literal", publicURL: "https://[FD00::2]:443",
             expected: ["fd00::2", "192.0.2.2", "10.0.0.5", "127.0.0.1", "::1"]),
        Case(name: "wildcard with a DNS name in the URL: a name is not a candidate address", publicURL: "https://stage.example.com",
             expected: ["192.0.2.2", "10.0.0.5", "fd00::2", "127.0.0.1", "::1"]),
        Case(name: "wildcard with a URL literal no interface has (behind NAT): still first", publicURL: "http://198.51.100.9",
             expected: ["198.51.100.9", "192.0.2.2", "10.0.0.5", "fd00::2", "127.0.0.1", "::1"]),
        Case(name: "a specific host: just that address", host: "192.0.2.2", publicURL: "http://198.51.100.9", expected: ["192.0.2.2"]),
        Case(name: "a specific IPv6 host", host: "::1", expected: ["::1"]),
        Case(name: "explicit --public-ip values, in order, canonical, duplicates dropped",
             publicIPs: ["203.0.113.4", "2001:DB8:0:0::1", "203.0.113.4"], publicURL: "http://10.0.0.5", expected: ["203.0.113.4", "2001:db8::1"]),
        Case(name: "explicit values win over a specific host", publicIPs: ["203.0.113.4"], host: "127.0.0.1", expected: ["203.0.113.4"]),
    ])
    func advertised(_ example: Case) throws {
        #expect(try resolve(publicIPs: example.publicIPs, host: example.host, publicURL: example.publicURL) == example.expected)
    }

    @Test("with no interface address at all: the --public-url literal even if loopback, else 127.0.0.1")
    func nothingElse() throws {
        #expect(try resolve(publicURL: "http://[::1]:8080", interfaces: []) == ["::1"])
        #expect(try resolve(publicURL: "http://stage.example.com", interfaces: []) == ["127.0.0.1"])
        #expect(try resolve(interfaces: []) == ["127.0.0.1"])
        #expect(try resolve(interfaces: [.init("fe80::1")]) == ["127.0.0.1"])
    }

    @Test("after binding: only the addresses of families a socket serves, in order")
    func servedFamilies() {
        let advertised = ["203.0.113.4", "2001:db8::1", "127.0.0.1", "::1"]
        let v4 = "0.0.0.0", v6 = "::"
        #expect(AdvertisedAddresses.served(advertised, by: [v4, v6]) == advertised)
        #expect(AdvertisedAddresses.served(advertised, by: [v4]) == ["203.0.113.4", "127.0.0.1"])
        #expect(AdvertisedAddresses.served(advertised, by: [v6]) == ["2001:db8::1", "::1"])
        #expect(AdvertisedAddresses.served(advertised, by: []).isEmpty)
    }

    @Test("a --public-ip that is no usable address literal is refused, naming the flag and the rule",
          arguments: ["stage.example.com", "fe80::1", "fe80::1%eth0", "0.0.0.0", "::", "1.2.3", "", "203.0.113.4:7880"])
    func refused(_ value: String) {
        #expect {
            try resolve(publicIPs: ["203.0.113.1", value])
        } throws: { error in
            guard let error = error as? ServerConfigurationError else { return false }
            return error.code == "invalid_public_ip" && error.flag == "--public-ip" && error.value == value
                && error.description.hasPrefix("--public-ip \(value): must ")
        }
    }

    @Test("fe80::/10 is link-local, its neighbours are not")
    func linkLocal() {
        #expect(AdvertisedAddresses.isLinkLocal("fe80::1") && AdvertisedAddresses.isLinkLocal("febf::1"))
        #expect(!AdvertisedAddresses.isLinkLocal("fec0::1") && !AdvertisedAddresses.isLinkLocal("fe7f::1") && !AdvertisedAddresses.isLinkLocal("::1"))
    }
}
