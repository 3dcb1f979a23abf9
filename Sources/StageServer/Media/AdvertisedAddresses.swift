import Foundation
import NIOCore
import StageTransport

/// Which addresses the server puts in its ICE candidates (RFC 8445 §5.1.1.1), most preferred
/// first:
/// - the `--public-ip` values, in the order given, when there are any;
/// - else, for a specific `--host`, that address;
/// - else (a wildcard host) every interface address, IPv4 and IPv6, loopback included, IPv6
///   link-local (fe80::/10) left out since a candidate cannot carry its zone: non-loopback
///   IPv4, non-loopback IPv6, loopback IPv4, loopback IPv6 (what a remote client can reach
///   ranks above what only a local one can). The host of a `--public-url` given on the
///   command line goes first when it is an IP literal that is not loopback (the address
///   clients are told to use, possibly one behind NAT that no interface has). The default
///   public URL (`http://127.0.0.1:<port>`) never ranks first: a remote client would try
///   loopback before anything it can reach. With no interface address at all, the
///   `--public-url` literal, else 127.0.0.1.
/// A DNS name is never a candidate address: the public URL's host counts only as a literal.
/// After the media port is bound, ``served(_:by:)`` keeps only the addresses of families a
/// socket serves.
enum AdvertisedAddresses {
    /// One interface address, as `System.enumerateDevices()` lists them.
    struct Interface: Equatable {
        var address: String
        init(_ address: String) { self.address = address }
    }

    static let flag = "--public-ip"

    /// Checks one `--public-ip` value and returns its canonical text (lowercase, compressed IPv6).
    static func validate(publicIP value: String) throws(ServerConfigurationError) -> String {
        func refuse(_ reason: String) -> ServerConfigurationError {
            ServerConfigurationError(code: "invalid_public_ip", flag: flag, value: value, reason: reason)
        }
        guard let canonical = canonical(value) else {
            throw refuse("must be an IPv4 or IPv6 address literal (a DNS name or an address with a zone is not a candidate address)")
        }
        guard canonical != "0.0.0.0", canonical != "::" else {
            throw refuse("must be an address clients can send to, not the unspecified address")
        }
        guard !isLinkLocal(canonical) else {
            throw refuse("must not be IPv6 link-local (fe80::/10): a candidate cannot name its zone")
        }
        return canonical
    }

    /// The advertised list for a configuration.
    /// - Parameters:
    ///   - publicURLHost: the host of the `--public-url` given on the command line (nil when
    ///     none was given and the default applies).
    ///   - interfaces: the machine's interface addresses, used only for a wildcard host.
    static func resolve(publicIPs: [String], host: String, publicURLHost: String?,
                        interfaces: () -> [Interface]) throws(ServerConfigurationError) -> [String] {
        var chosen: [String] = []
        func add(_ address: String) { if !chosen.contains(address) { chosen.append(address) } }
        if !publicIPs.isEmpty {
            for value in publicIPs { add(try validate(publicIP: value)) }
            return chosen
        }
        guard MediaEngine.isWildcard(host) else {
            if let literal = canonical(host) { return [literal] }
            // A --host name: the address it binds is what clients reach.
            if let resolved = try? SocketAddress.makeAddressResolvingHost(host, port: 0).ipAddress { return [resolved] }
            return ["127.0.0.1"]
        }
        let urlLiteral = publicURLHost.flatMap(canonical).flatMap { $0 == "0.0.0.0" || $0 == "::" || isLinkLocal($0) ? nil : $0 }
        if let urlLiteral, !isLoopback(urlLiteral) { add(urlLiteral) }
        let usable = interfaces().compactMap { canonical($0.address) }.filter { !isLinkLocal($0) && $0 != "0.0.0.0" && $0 != "::" }
        let ranked = usable.enumerated().sorted { a, b in
            (rank(a.element), a.offset) < (rank(b.element), b.offset)
        }
        for (_, address) in ranked { add(address) }
        if chosen.isEmpty { add(urlLiteral ?? "127.0.0.1") }
        return chosen
    }

    /// The addresses of `advertised` whose family (IPv4, IPv6) has a socket among `bound` (the
    /// sockets' local IP addresses), in the same order: a candidate no socket serves would only
    /// make clients wait.
    static func served(_ advertised: [String], by bound: [String]) -> [String] {
        let ipv4 = bound.contains { !$0.contains(":") }
        let ipv6 = bound.contains { $0.contains(":") }
        return advertised.filter { $0.contains(":") ? ipv6 : ipv4 }
    }

    /// Every address of every interface of this machine.
    static func systemInterfaces() -> [Interface] {
        ((try? System.enumerateDevices()) ?? []).compactMap { $0.address?.ipAddress }.map(Interface.init)
    }

    /// 0 non-loopback IPv4, 1 non-loopback IPv6, 2 loopback IPv4, 3 loopback IPv6.
    private static func rank(_ address: String) -> Int {
        (isLoopback(address) ? 2 : 0) + (address.contains(":") ? 1 : 0)
    }

    /// 127.0.0.0/8 or ::1, for a canonical literal.
    static func isLoopback(_ canonicalAddress: String) -> Bool {
        canonicalAddress.contains(":") ? canonicalAddress == "::1" : canonicalAddress.hasPrefix("127.")
    }

    /// The canonical text of an IP literal (brackets allowed around IPv6), nil for anything else.
    static func canonical(_ text: String) -> String? {
        var literal = text
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        return (try? SocketAddress(ipAddress: literal, port: 0))?.ipAddress
    }

    /// fe80::/10: the first 10 bits are 1111 1110 10.
    static func isLinkLocal(_ canonicalAddress: String) -> Bool {
        guard canonicalAddress.contains(":"), let first = canonicalAddress.split(separator: ":").first,
              let group = UInt16(first, radix: 16), canonicalAddress.hasPrefix(first) else { return false }
        return group & 0xFFC0 == 0xFE80
    }
}
