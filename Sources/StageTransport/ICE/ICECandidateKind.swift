/// What kind of transport address a candidate is (RFC 8445 §5.1.1) and how it ranks.
public enum ICECandidateType: String, Sendable, Hashable, CaseIterable {
    case host
    /// Server reflexive: our address as a STUN (or TURN) server saw it.
    case srflx
    /// Peer reflexive: learned from a connectivity check's XOR-MAPPED-ADDRESS.
    case prflx
    /// Relayed through a TURN server (RFC 8656).
    case relay

    /// The type preference of RFC 8445 §5.1.2.2's recommended values.
    public var typePreference: UInt32 {
        switch self {
        case .host: 126
        case .prflx: 110
        case .srflx: 100
        case .relay: 0
        }
    }
}

/// The transport of a candidate; TCP candidates carry a `tcptype` (RFC 6544 §4.5).
public enum ICETransportProtocol: String, Sendable, Hashable {
    case udp
    case tcp
}

/// RFC 6544 §4.5: an active candidate opens connections, a passive one accepts them.
public enum ICETCPType: String, Sendable, Hashable {
    case active
    case passive
    case so
}

public enum ICEPriority {
    /// RFC 8445 §5.1.2.1: `2^24 × type preference + 2^8 × local preference + (256 − component)`.
    /// For TCP candidates RFC 6544 §4.2 folds the direction into the local preference:
    /// `2^13 × direction preference + other preference`, pass it as `localPreference`.
    public static func candidate(type: ICECandidateType, localPreference: UInt16, component: UInt16 = 1) -> UInt32 {
        (type.typePreference << 24) + (UInt32(localPreference) << 8) + (256 - UInt32(min(max(component, 1), 256)))
    }

    /// RFC 6544 §4.2's local preference for a TCP candidate: direction preference (active 6,
    /// passive 4, so 2 for a host that is not behind a NAT that breaks it) × 2^13 + `other` (< 2^13).
    public static func tcpLocalPreference(_ tcpType: ICETCPType, other: UInt16) -> UInt16 {
        let direction: UInt16 = switch tcpType {
        case .active: 6
        case .passive: 4
        case .so: 2
        }
        return direction << 13 + min(other, (1 << 13) - 1)
    }

    /// RFC 8445 §6.1.2.3: the pair priority from the controlling (G) and controlled (D)
    /// candidates' priorities: `2^32 × min(G,D) + 2 × max(G,D) + (G > D ? 1 : 0)`.
    public static func pair(controlling g: UInt32, controlled d: UInt32) -> UInt64 {
        (UInt64(min(g, d)) << 32) + 2 * UInt64(max(g, d)) + (g > d ? 1 : 0)
    }
}
