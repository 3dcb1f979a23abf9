/// The attributes TURN adds (RFC 8656 §18, registered in §17).
extension STUNAttributeType {
    // RFC 8656 §18, comprehension-required.
    /// CHANNEL-NUMBER (§18.1): a channel number and 16 reserved bits.
    public static let channelNumber = STUNAttributeType(rawValue: 0x000C)
    /// LIFETIME (§18.2): seconds the server keeps the allocation.
    public static let lifetime = STUNAttributeType(rawValue: 0x000D)
    /// XOR-PEER-ADDRESS (§18.3): a peer's transport address, XORed like XOR-MAPPED-ADDRESS.
    public static let xorPeerAddress = STUNAttributeType(rawValue: 0x0012)
    /// DATA (§18.4): the application data of a Send or Data indication.
    public static let data = STUNAttributeType(rawValue: 0x0013)
    /// XOR-RELAYED-ADDRESS (§18.5): the relayed transport address the server allocated.
    public static let xorRelayedAddress = STUNAttributeType(rawValue: 0x0016)
    /// REQUESTED-ADDRESS-FAMILY (§18.6): the family of the relayed address asked for.
    public static let requestedAddressFamily = STUNAttributeType(rawValue: 0x0017)
    /// EVEN-PORT (§18.7): asks for an even relayed port, optionally reserving the next one.
    public static let evenPort = STUNAttributeType(rawValue: 0x0018)
    /// REQUESTED-TRANSPORT (§18.8): the transport protocol of the relayed address (17, UDP).
    public static let requestedTransport = STUNAttributeType(rawValue: 0x0019)
    /// DONT-FRAGMENT (§18.9): no value; asks the server to set DF on relayed packets.
    public static let dontFragment = STUNAttributeType(rawValue: 0x001A)
    /// RESERVATION-TOKEN (§18.10): 8 bytes naming a reserved relayed address.
    public static let reservationToken = STUNAttributeType(rawValue: 0x0022)
    // RFC 8656 §18, comprehension-optional.
    /// ADDITIONAL-ADDRESS-FAMILY (§18.11): asks for a second (IPv6) relayed address.
    public static let additionalAddressFamily = STUNAttributeType(rawValue: 0x8000)
    /// ADDRESS-ERROR-CODE (§18.12): why one family of a dual allocation failed.
    public static let addressErrorCode = STUNAttributeType(rawValue: 0x8001)
    /// ICMP (§18.13): an ICMP error the server received for the relayed address.
    public static let icmp = STUNAttributeType(rawValue: 0x8004)

    /// The comprehension-required types a TURN client reads in responses and indications: the
    /// STUN ones plus RFC 8656 §18's. A response carrying another comprehension-required type
    /// is handled as RFC 8489 §7.3.3 says (an error for success responses).
    public static let understoodByTURNClient: Set<STUNAttributeType> = [
        .mappedAddress, .username, .messageIntegrity, .messageIntegritySHA256, .errorCode,
        .unknownAttributes, .realm, .nonce, .passwordAlgorithm, .userhash, .xorMappedAddress,
        .channelNumber, .lifetime, .xorPeerAddress, .data, .xorRelayedAddress,
        .requestedAddressFamily, .evenPort, .requestedTransport, .dontFragment, .reservationToken,
    ]

    /// RFC 8656 §18's names, for ``description``.
    var turnName: String? {
        switch self {
        case .channelNumber: "CHANNEL-NUMBER"
        case .lifetime: "LIFETIME"
        case .xorPeerAddress: "XOR-PEER-ADDRESS"
        case .data: "DATA"
        case .xorRelayedAddress: "XOR-RELAYED-ADDRESS"
        case .requestedAddressFamily: "REQUESTED-ADDRESS-FAMILY"
        case .evenPort: "EVEN-PORT"
        case .requestedTransport: "REQUESTED-TRANSPORT"
        case .dontFragment: "DONT-FRAGMENT"
        case .reservationToken: "RESERVATION-TOKEN"
        case .additionalAddressFamily: "ADDITIONAL-ADDRESS-FAMILY"
        case .addressErrorCode: "ADDRESS-ERROR-CODE"
        case .icmp: "ICMP"
        default: nil
        }
    }
}
