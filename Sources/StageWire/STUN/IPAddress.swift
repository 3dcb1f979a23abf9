/// An IPv4 or IPv6 address as STUN carries it (RFC 8489 §14.1), without Foundation or sockets.
///
/// Text forms follow RFC 4291 §2.2 for reading and RFC 5952 §4 for writing, so SDP candidates
/// and logs print addresses the way browsers do.
public enum IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// An IPv4 address as a big-endian 32-bit number (192.0.2.1 is 0xC0000201).
    case v4(UInt32)
    /// An IPv6 address as two big-endian 64-bit halves.
    case v6(high: UInt64, low: UInt64)

    /// Builds an address from 4 (IPv4) or 16 (IPv6) network-order bytes; `nil` for other counts.
    public init?<Bytes: Collection>(bytes: Bytes) where Bytes.Element == UInt8 {
        switch bytes.count {
        case 4:
            self = .v4(bytes.reduce(0) { $0 << 8 | UInt32($1) })
        case 16:
            let high = bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let low = bytes.dropFirst(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            self = .v6(high: high, low: low)
        default:
            return nil
        }
    }

    /// The address in network byte order: 4 or 16 bytes.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        switch self {
        case .v4(let value):
            out.appendBigEndian(value)
        case .v6(let high, let low):
            out.appendBigEndian(high)
            out.appendBigEndian(low)
        }
        return out
    }

    /// STUN's address family code (§14.1): 0x01 for IPv4, 0x02 for IPv6.
    public var stunFamily: UInt8 {
        switch self {
        case .v4: STUNAddress.familyIPv4
        case .v6: STUNAddress.familyIPv6
        }
    }

    /// Whether this is the IPv4 form.
    public var isIPv4: Bool {
        if case .v4 = self { return true }
        return false
    }

    /// The eight 16-bit groups of an IPv6 address.
    var groups: [UInt16] {
        guard case .v6(let high, let low) = self else { return [] }
        return (0..<8).map { index in
            let half = index < 4 ? high : low
            return UInt16(truncatingIfNeeded: half >> (48 - 16 * (index % 4)))
        }
    }

    /// Dotted quad for IPv4; RFC 5952 §4 for IPv6 (lowercase, no leading zeros, the longest run
    /// of two or more zero groups — the first on a tie — written `::`).
    public var description: String {
        switch self {
        case .v4(let value):
            return (0..<4).map { String(UInt8(truncatingIfNeeded: value >> (24 - 8 * $0))) }
                .joined(separator: ".")
        case .v6:
            let groups = self.groups
            var bestStart = -1, bestLength = 0, runStart = -1
            for index in 0...8 {
                if index < 8 && groups[index] == 0 {
                    if runStart < 0 { runStart = index }
                } else if runStart >= 0 {
                    if index - runStart > bestLength { bestStart = runStart; bestLength = index - runStart }
                    runStart = -1
                }
            }
            let text = groups.map { String($0, radix: 16) }
            guard bestLength >= 2 else { return text.joined(separator: ":") }
            let head = text[..<bestStart].joined(separator: ":")
            let tail = text[(bestStart + bestLength)...].joined(separator: ":")
            return head + "::" + tail
        }
    }
}
