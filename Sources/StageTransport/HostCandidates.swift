public import StageWire

/// The host candidates the server advertises in every answer (RFC 8445 §5.1.1.1): a UDP
/// candidate on the media port for each address the UDP sockets serve and, when ICE-TCP is on,
/// a passive TCP candidate on the ICE-TCP port (RFC 6544 §4.5, `tcptype passive`) for each
/// address the TCP listeners serve. The two lists are usually the same; each holds only
/// addresses of a family (IPv4, IPv6) that transport has a socket for.
///
/// Priorities follow RFC 8445 §5.1.2.1 with the host type preference (126): UDP candidates use
/// local preferences 65535, 65534, … in address order; TCP candidates use RFC 6544 §4.2's
/// local preference, passive direction (4 × 2^13) plus 8191, 8190, …, so every UDP candidate
/// ranks above every TCP one and the first address ranks highest within each transport.
/// Foundations differ per (address, transport) (RFC 8445 §5.1.1.3): `2i+1` for the `i`th UDP
/// address, `2i+2` for the `i`th TCP address.
public struct HostCandidates: Sendable, Equatable {
    /// IPv4 and IPv6 literals with a UDP candidate, most preferred first.
    public var udpAddresses: [String]
    public var udpPort: Int
    /// IPv4 and IPv6 literals with a TCP candidate, most preferred first (unused when ICE-TCP is off).
    public var tcpAddresses: [String]
    /// Nil when ICE-TCP is off.
    public var tcpPort: Int?

    public init(udpAddresses: [String], udpPort: Int, tcpAddresses: [String], tcpPort: Int?) {
        self.udpAddresses = udpAddresses
        self.udpPort = udpPort
        self.tcpAddresses = tcpAddresses
        self.tcpPort = tcpPort
    }

    /// The same addresses for UDP and TCP.
    public init(addresses: [String], udpPort: Int, tcpPort: Int? = nil) {
        self.init(udpAddresses: addresses, udpPort: udpPort, tcpAddresses: addresses, tcpPort: tcpPort)
    }

    /// Local preferences stay distinct for this many addresses; later ones share the lowest.
    static let distinctPreferences = 8191

    /// The `a=candidate` values: every UDP candidate, then every TCP one, each in address order
    /// (which is priority order, so a client that takes the first usable line gets UDP).
    public var sdpCandidates: [SDPCandidate] {
        var candidates: [SDPCandidate] = []
        for (index, address) in udpAddresses.enumerated() {
            candidates.append(SDPCandidate(foundation: "\(2 * index + 1)", transport: "udp", priority: Self.udpPriority(index: index),
                                           address: address, port: UInt16(clamping: udpPort)))
        }
        if let tcpPort {
            for (index, address) in tcpAddresses.enumerated() {
                candidates.append(SDPCandidate(foundation: "\(2 * index + 2)", transport: "tcp", priority: Self.tcpPriority(index: index),
                                               address: address, port: UInt16(clamping: tcpPort),
                                               extensions: [SDPParameter(name: "tcptype", value: ICETCPType.passive.rawValue)]))
            }
        }
        return candidates
    }

    /// RFC 8445 §5.1.2.1 for the UDP candidate of the `index`th address.
    public static func udpPriority(index: Int) -> UInt32 {
        ICEPriority.candidate(type: .host, localPreference: UInt16(65535 - min(index, distinctPreferences)))
    }

    /// RFC 6544 §4.2 for the passive TCP candidate of the `index`th address.
    public static func tcpPriority(index: Int) -> UInt32 {
        let other = UInt16(distinctPreferences - min(index, distinctPreferences))
        return ICEPriority.candidate(type: .host, localPreference: ICEPriority.tcpLocalPreference(.passive, other: other))
    }

    /// `IP4` or `IP6` and the address for `o=` and `c=` lines: the first UDP address (else the
    /// first TCP one), or the unspecified IPv4 address when there is none.
    var connectionAddress: (addressType: String, address: String) {
        guard let first = udpAddresses.first ?? (tcpPort == nil ? nil : tcpAddresses.first) else { return ("IP4", "0.0.0.0") }
        return (first.contains(":") ? "IP6" : "IP4", first)
    }
}
