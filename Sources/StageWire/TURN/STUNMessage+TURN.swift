/// Typed reads of TURN's attributes (RFC 8656 §18).
///
/// Like the STUN accessors, each returns `nil` when the attribute is absent, throws
/// ``STUNError`` when it is present but malformed, and ignores attributes after
/// MESSAGE-INTEGRITY (RFC 8489 §14.5).
extension STUNMessage {
    /// The RFC 8656 §12 channel-number range a client may bind.
    public static let channelNumbers: ClosedRange<UInt16> = 0x4000...0x4FFF

    /// CHANNEL-NUMBER (§18.1): the channel, which must lie in 0x4000–0x4FFF.
    /// - Throws: `invalidAttributeLength` unless 4 bytes, `invalidChannelNumber` out of range.
    public var channelNumber: UInt16? {
        get throws(STUNError) {
            guard let attribute = try fixed(.channelNumber, length: 4) else { return nil }
            let number = bytes.readUInt16(at: attribute.valueRange.lowerBound)
            guard Self.channelNumbers.contains(number) else { throw .invalidChannelNumber(number) }
            return number
        }
    }

    /// LIFETIME (§18.2): seconds until the allocation expires (0 in a Refresh deletes it).
    public var lifetime: UInt32? {
        get throws(STUNError) {
            guard let attribute = try fixed(.lifetime, length: 4) else { return nil }
            return bytes.readUInt32(at: attribute.valueRange.lowerBound)
        }
    }

    /// The first XOR-PEER-ADDRESS (§18.3).
    public var xorPeerAddress: STUNAddress? {
        get throws(STUNError) { try xorAddresses(.xorPeerAddress).first }
    }

    /// Every XOR-PEER-ADDRESS (§18.3): a CreatePermission may carry several (§10.1).
    public var xorPeerAddresses: [STUNAddress] {
        get throws(STUNError) { try xorAddresses(.xorPeerAddress) }
    }

    /// The first XOR-RELAYED-ADDRESS (§18.5).
    public var xorRelayedAddress: STUNAddress? {
        get throws(STUNError) { try xorAddresses(.xorRelayedAddress).first }
    }

    /// Every XOR-RELAYED-ADDRESS (§18.5): two in a dual-allocation response (§7.3), IPv4 then IPv6.
    public var xorRelayedAddresses: [STUNAddress] {
        get throws(STUNError) { try xorAddresses(.xorRelayedAddress) }
    }

    /// DATA (§18.4): the application data of a Send or Data indication, any length.
    public var data: ArraySlice<UInt8>? {
        attribute(.data).map { value(of: $0) }
    }

    /// REQUESTED-ADDRESS-FAMILY (§18.6).
    public var requestedAddressFamily: TURNAddressFamily? {
        get throws(STUNError) { try family(.requestedAddressFamily) }
    }

    /// ADDITIONAL-ADDRESS-FAMILY (§18.11): must be IPv6 when sent (§7.1); read as given.
    public var additionalAddressFamily: TURNAddressFamily? {
        get throws(STUNError) { try family(.additionalAddressFamily) }
    }

    /// EVEN-PORT (§18.7): `true` when the R bit asks to reserve the next-higher port too.
    public var evenPort: Bool? {
        get throws(STUNError) {
            guard let attribute = try fixed(.evenPort, length: 1) else { return nil }
            return bytes[attribute.valueRange.lowerBound] & 0x80 != 0
        }
    }

    /// REQUESTED-TRANSPORT (§18.8): the protocol number (17 for UDP).
    public var requestedTransport: UInt8? {
        get throws(STUNError) {
            guard let attribute = try fixed(.requestedTransport, length: 4) else { return nil }
            return bytes[attribute.valueRange.lowerBound]
        }
    }

    /// DONT-FRAGMENT (§18.9): present or not; it has no value.
    public var dontFragment: Bool { attribute(.dontFragment) != nil }

    /// RESERVATION-TOKEN (§18.10): 8 opaque bytes as a number.
    public var reservationToken: UInt64? {
        get throws(STUNError) {
            guard let attribute = try fixed(.reservationToken, length: 8) else { return nil }
            return bytes.readUInt64(at: attribute.valueRange.lowerBound)
        }
    }

    /// ICMP (§18.13).
    public var icmp: TURNICMP? {
        get throws(STUNError) {
            guard let attribute = try fixed(.icmp, length: TURNICMP.valueLength) else { return nil }
            return TURNICMP(value: value(of: attribute))
        }
    }

    func xorAddresses(_ type: STUNAttributeType) throws(STUNError) -> [STUNAddress] {
        var addresses: [STUNAddress] = []
        let key = STUNAddress.xorKey(transactionID)
        for attribute in protectedAttributes where attribute.type == type {
            addresses.append(try STUNAddress.decode(value(of: attribute), type: type, xorKey: key))
        }
        return addresses
    }

    func family(_ type: STUNAttributeType) throws(STUNError) -> TURNAddressFamily? {
        guard let attribute = try fixed(type, length: 4) else { return nil }
        let code = bytes[attribute.valueRange.lowerBound]
        guard let family = TURNAddressFamily(rawValue: code) else {
            throw .unknownAddressFamily(type: type, family: code)
        }
        return family
    }
}
