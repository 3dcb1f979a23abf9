public import NIOCore
import StageWire

/// A candidate pair as the ICE-lite server sees it (RFC 8445 §2.5): the local socket a
/// connectivity check arrived on and the remote transport address it came from. The pair a
/// peer selected is where its answers, DTLS and SRTP leave from, so media always goes out of
/// the socket (UDP IPv4, UDP IPv6 or one ICE-TCP connection) the checks came in on.
///
/// A value type holding one class reference: making one per datagram allocates nothing.
public struct MediaPath {
    /// The local end of the pair.
    enum Local {
        /// One of the shared UDP sockets (IPv4 or IPv6).
        case udp(MediaUDPSocket)
        /// One accepted ICE-TCP connection (RFC 6544, passive), which belongs to one peer.
        case tcp(ICETCPConnection)
    }

    let local: Local
    /// The remote transport address: a datagram's source, or the TCP connection's peer address.
    public let remote: SocketAddress

    /// The transport of the pair (`udp`, or `tcp` for ICE-TCP).
    public var transport: ICETransportProtocol {
        switch local {
        case .udp: .udp
        case .tcp: .tcp
        }
    }

    /// Bytes reserved before every packet written on this path: RFC 4571's 16-bit length on TCP.
    var framingHeadroom: Int {
        switch local {
        case .udp: 0
        case .tcp: RFC4571Scanner.prefixLength
        }
    }

    /// The ICE-TCP connection of the path, if it is one.
    var connection: ICETCPConnection? {
        if case .tcp(let connection) = local { connection } else { nil }
    }

    /// The same local socket or connection and the same remote address.
    func isSame(as other: MediaPath) -> Bool {
        switch (local, other.local) {
        case (.udp(let a), .udp(let b)): a === b && remote == other.remote
        case (.tcp(let a), .tcp(let b)): a === b
        default: false
        }
    }
}

extension MediaPath: CustomStringConvertible {
    public var description: String { "\(transport.rawValue) \(remote)" }
}
