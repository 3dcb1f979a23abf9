/// A transport address (IP and port) as MAPPED-ADDRESS (RFC 8489 §14.1) and
/// XOR-MAPPED-ADDRESS (§14.2) carry it.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |0 0 0 0 0 0 0 0|    Family     |         (X-)Port              |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                 (X-)Address (32 bits or 128 bits)             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct STUNAddress: Hashable, Sendable, CustomStringConvertible {
    public var ip: IPAddress
    public var port: UInt16

    public init(ip: IPAddress, port: UInt16) {
        self.ip = ip
        self.port = port
    }

    /// §14.1 family codes.
    public static let familyIPv4: UInt8 = 0x01
    public static let familyIPv6: UInt8 = 0x02
    /// Value lengths: 4 header bytes plus the address.
    static let ipv4ValueLength = 8
    static let ipv6ValueLength = 20

    /// `192.0.2.1:32853` or `[2001:db8::1]:32853`.
    public var description: String {
        ip.isIPv4 ? "\(ip):\(port)" : "[\(ip)]:\(port)"
    }

    /// Decodes a (XOR-)MAPPED-ADDRESS value.
    /// - Parameters:
    ///   - value: the attribute value, without header or padding.
    ///   - type: the attribute type, for errors.
    ///   - xorKey: `nil` for MAPPED-ADDRESS; for XOR-MAPPED-ADDRESS the 16 bytes of magic cookie
    ///     followed by the transaction ID (§14.2: the port is XORed with the cookie's top 16
    ///     bits, IPv4 with the cookie, IPv6 with cookie ‖ transaction ID).
    static func decode(_ value: ArraySlice<UInt8>, type: STUNAttributeType, xorKey: [UInt8]?) throws(STUNError) -> STUNAddress {
        guard value.count >= 4 else { throw .invalidAttributeLength(type: type, length: value.count) }
        let start = value.startIndex
        let family = value[start + 1]
        let expectedLength: Int
        switch family {
        case familyIPv4: expectedLength = ipv4ValueLength
        case familyIPv6: expectedLength = ipv6ValueLength
        default: throw .unknownAddressFamily(type: type, family: family)
        }
        guard value.count == expectedLength else {
            throw .invalidAttributeLength(type: type, length: value.count)
        }
        var port = UInt16(value[start + 2]) << 8 | UInt16(value[start + 3])
        var address = Array(value[(start + 4)...])
        if let xorKey { Self.xor(port: &port, address: &address, with: xorKey) }
        guard let ip = IPAddress(bytes: address) else {
            throw .invalidAttributeLength(type: type, length: value.count)
        }
        return STUNAddress(ip: ip, port: port)
    }

    /// XOR-MAPPED-ADDRESS obfuscation (RFC 8489 §14.2): the port with the key's first 16 bits,
    /// the address with the key's leading bytes. Its own inverse.
    private static func xor(port: inout UInt16, address: inout [UInt8], with key: [UInt8]) {
        port ^= UInt16(key[0]) << 8 | UInt16(key[1])
        for index in address.indices { address[index] ^= key[index] }
    }

    /// Encodes the value of a (XOR-)MAPPED-ADDRESS; `xorKey` as in `decode`.
    func encode(xorKey: [UInt8]?) -> [UInt8] {
        var out: [UInt8] = [0, ip.stunFamily]
        var port = self.port
        var address = ip.bytes
        if let xorKey { Self.xor(port: &port, address: &address, with: xorKey) }
        out.appendBigEndian(port)
        out += address
        return out
    }

    /// The XOR key of §14.2: magic cookie then transaction ID, 16 bytes.
    static func xorKey(_ transactionID: STUNTransactionID) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(16)
        key.appendBigEndian(STUNMessage.magicCookie)
        key += transactionID.bytes
        return key
    }
}
