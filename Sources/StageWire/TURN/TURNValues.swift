/// An address family as REQUESTED-ADDRESS-FAMILY and ADDITIONAL-ADDRESS-FAMILY carry it
/// (RFC 8656 §18.6, §18.11): the family codes of RFC 8489 §14.1.
public enum TURNAddressFamily: UInt8, Hashable, Sendable, CaseIterable {
    case ipv4 = 0x01
    case ipv6 = 0x02
}

/// The value of the ICMP attribute (RFC 8656 §18.13): an ICMP error the server received for
/// traffic the client relayed.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           Reserved            |  ICMP Type  |    ICMP Code    |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                          Error Data                           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct TURNICMP: Hashable, Sendable {
    /// The ICMP type, 0–127 (7 bits).
    public var type: UInt8
    /// The ICMP code, 0–511 (9 bits).
    public var code: UInt16
    /// The MTU for "packet too big"/"fragmentation needed", else 0.
    public var errorData: UInt32

    public init(type: UInt8, code: UInt16, errorData: UInt32 = 0) {
        self.type = type & 0x7F
        self.code = code & 0x01FF
        self.errorData = errorData
    }

    static let valueLength = 8

    init(value: ArraySlice<UInt8>) {
        let start = value.startIndex
        let bits = UInt16(value[start + 2]) << 8 | UInt16(value[start + 3])
        let data = value[(start + 4)...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        self.init(type: UInt8(truncatingIfNeeded: bits >> 9), code: bits & 0x01FF, errorData: data)
    }

    var encoded: [UInt8] {
        var out: [UInt8] = [0, 0]
        out.appendBigEndian(UInt16(type) << 9 | code)
        out.appendBigEndian(errorData)
        return out
    }
}

/// TURN protocol numbers (RFC 8656 §18.8: "the IANA-assigned protocol number").
public enum TURNTransportProtocol {
    /// UDP (17): the only relayed transport RFC 8656 defines.
    public static let udp: UInt8 = 17
}
