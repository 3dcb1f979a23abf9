import NIOCore

/// The source an ICE-TCP connection counts against for `ICETCPLimits.maximumUnauthenticatedPerSource`:
/// the whole IPv4 address (/32), or the /64 of an IPv6 address — the prefix one host or site is
/// usually given (RFC 6177), so a client cannot evade the cap by using more of its own addresses.
/// An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) counts as its IPv4 address.
enum SourcePrefix: Hashable {
    case v4(UInt32)
    case v6(UInt64)

    /// Nil for an address that is not IP (a Unix socket).
    init?(_ address: SocketAddress) {
        switch address {
        case .v4(let v4):
            self = .v4(UInt32(bigEndian: v4.address.sin_addr.s_addr))
        case .v6(let v6):
            var storage = v6.address.sin6_addr
            let bytes = withUnsafeBytes(of: &storage) { Array($0) }
            let high = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
            self = mapped ? .v4(bytes[12..<16].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) : .v6(high)
        default:
            return nil
        }
    }
}
