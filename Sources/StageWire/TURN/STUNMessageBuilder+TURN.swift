/// Typed appends for TURN's attributes (RFC 8656 §18).
extension STUNMessageBuilder {
    /// CHANNEL-NUMBER (§18.1): the number and 16 reserved zero bits.
    /// - Throws: `invalidChannelNumber` outside 0x4000–0x4FFF (§12).
    public mutating func appendChannelNumber(_ number: UInt16) throws(STUNError) {
        guard STUNMessage.channelNumbers.contains(number) else { throw .invalidChannelNumber(number) }
        var value: [UInt8] = []
        value.appendBigEndian(number)
        value.appendBigEndian(UInt16(0))
        appendUnchecked(.channelNumber, value: value)
    }

    /// LIFETIME (§18.2) in seconds; 0 in a Refresh deletes the allocation (§8).
    public mutating func appendLifetime(_ seconds: UInt32) {
        var value: [UInt8] = []
        value.appendBigEndian(seconds)
        appendUnchecked(.lifetime, value: value)
    }

    /// XOR-PEER-ADDRESS (§18.3), XORed with the cookie and this message's transaction ID.
    public mutating func appendXORPeerAddress(_ address: STUNAddress) {
        appendUnchecked(.xorPeerAddress, value: address.encode(xorKey: STUNAddress.xorKey(transactionID)))
    }

    /// XOR-RELAYED-ADDRESS (§18.5), as a server (or a test's fake one) writes it.
    public mutating func appendXORRelayedAddress(_ address: STUNAddress) {
        appendUnchecked(.xorRelayedAddress, value: address.encode(xorKey: STUNAddress.xorKey(transactionID)))
    }

    /// DATA (§18.4).
    /// - Throws: `valueTooLong` when the message would pass 65,535 bytes.
    public mutating func appendData<Payload: Collection>(_ payload: Payload) throws(STUNError)
    where Payload.Element == UInt8 {
        try append(.data, value: payload)
    }

    /// REQUESTED-ADDRESS-FAMILY (§18.6): the family and 24 reserved zero bits.
    public mutating func appendRequestedAddressFamily(_ family: TURNAddressFamily) {
        appendUnchecked(.requestedAddressFamily, value: [family.rawValue, 0, 0, 0])
    }

    /// ADDITIONAL-ADDRESS-FAMILY (§18.11): §7.1 allows only IPv6 here.
    public mutating func appendAdditionalAddressFamily(_ family: TURNAddressFamily) {
        appendUnchecked(.additionalAddressFamily, value: [family.rawValue, 0, 0, 0])
    }

    /// EVEN-PORT (§18.7): one byte, the R bit set to reserve the next-higher port.
    public mutating func appendEvenPort(reserveNext: Bool) {
        appendUnchecked(.evenPort, value: [reserveNext ? 0x80 : 0x00])
    }

    /// REQUESTED-TRANSPORT (§18.8): the protocol (UDP, 17, by default) and 24 reserved zero bits.
    public mutating func appendRequestedTransport(_ protocolNumber: UInt8 = TURNTransportProtocol.udp) {
        appendUnchecked(.requestedTransport, value: [protocolNumber, 0, 0, 0])
    }

    /// DONT-FRAGMENT (§18.9): no value.
    public mutating func appendDontFragment() {
        appendUnchecked(.dontFragment, value: EmptyCollection<UInt8>())
    }

    /// RESERVATION-TOKEN (§18.10).
    public mutating func appendReservationToken(_ token: UInt64) {
        var value: [UInt8] = []
        value.appendBigEndian(token)
        appendUnchecked(.reservationToken, value: value)
    }

    /// ICMP (§18.13).
    public mutating func appendICMP(_ icmp: TURNICMP) {
        appendUnchecked(.icmp, value: icmp.encoded)
    }
}
