/// Typed reads of the attributes RFC 8489 §14 and RFC 8445 §16.1 define.
///
/// Each returns `nil` when the attribute is absent and throws ``STUNError`` when it is present
/// but malformed. Like ``STUNMessage/attribute(_:)``, they ignore attributes that follow
/// MESSAGE-INTEGRITY (§14.5).
extension STUNMessage {
    /// USERNAME (§14.3): for ICE, `"<receiver's ufrag>:<sender's ufrag>"` (RFC 8445 §7.2.2).
    public var username: String? {
        get throws(STUNError) { try text(.username) }
    }

    /// SOFTWARE (§14.14): the sender's software name and version.
    public var software: String? {
        get throws(STUNError) { try text(.software) }
    }

    /// XOR-MAPPED-ADDRESS (§14.2): the reflexive transport address, IPv4 or IPv6.
    public var xorMappedAddress: STUNAddress? {
        get throws(STUNError) {
            guard let attribute = attribute(.xorMappedAddress) else { return nil }
            return try STUNAddress.decode(
                value(of: attribute), type: .xorMappedAddress, xorKey: STUNAddress.xorKey(transactionID))
        }
    }

    /// MAPPED-ADDRESS (§14.1): the reflexive transport address in the clear (RFC 3489 servers).
    public var mappedAddress: STUNAddress? {
        get throws(STUNError) {
            guard let attribute = attribute(.mappedAddress) else { return nil }
            return try STUNAddress.decode(value(of: attribute), type: .mappedAddress, xorKey: nil)
        }
    }

    /// ERROR-CODE (§14.8).
    public var errorCode: STUNErrorCode? {
        get throws(STUNError) {
            guard let attribute = attribute(.errorCode) else { return nil }
            return try STUNErrorCode.decode(value(of: attribute))
        }
    }

    /// UNKNOWN-ATTRIBUTES (§14.9): the attribute types a 420 response did not understand.
    public var unknownAttributes: [STUNAttributeType]? {
        get throws(STUNError) {
            guard let attribute = attribute(.unknownAttributes) else { return nil }
            guard attribute.length % 2 == 0 else {
                throw .invalidAttributeLength(type: .unknownAttributes, length: attribute.length)
            }
            return stride(from: attribute.valueRange.lowerBound, to: attribute.valueRange.upperBound, by: 2)
                .map { STUNAttributeType(rawValue: bytes.readUInt16(at: $0)) }
        }
    }

    /// PRIORITY (RFC 8445 §16.1): the priority a peer-reflexive candidate would get.
    public var priority: UInt32? {
        get throws(STUNError) {
            guard let attribute = try fixed(.priority, length: 4) else { return nil }
            return bytes.readUInt32(at: attribute.valueRange.lowerBound)
        }
    }

    /// USE-CANDIDATE (RFC 8445 §16.1): present when the controlling agent nominates the pair.
    public var useCandidate: Bool { attribute(.useCandidate) != nil }

    /// ICE-CONTROLLED (RFC 8445 §16.1): the sender's 64-bit tie-breaker, sender is controlled.
    public var iceControlled: UInt64? {
        get throws(STUNError) { try tieBreaker(.iceControlled) }
    }

    /// ICE-CONTROLLING (RFC 8445 §16.1): the sender's 64-bit tie-breaker, sender is controlling.
    public var iceControlling: UInt64? {
        get throws(STUNError) { try tieBreaker(.iceControlling) }
    }

    /// The 20-byte HMAC-SHA1 of MESSAGE-INTEGRITY (§14.5), if present.
    public var messageIntegrity: ArraySlice<UInt8>? {
        integrityOffset.map { bytes[$0 + 4 ..< $0 + 24] }
    }

    /// The 16–32-byte HMAC-SHA256 of MESSAGE-INTEGRITY-SHA256 (§14.6), if present.
    public var messageIntegritySHA256: ArraySlice<UInt8>? {
        integritySHA256Offset.map { attribute(at: $0) }.map { value(of: $0) }
    }

    /// The CRC value of FINGERPRINT (§14.7), if present; parsing has already checked it.
    public var fingerprint: UInt32? {
        fingerprintOffset.map { bytes.readUInt32(at: $0 + 4) }
    }

    /// The comprehension-required attributes (type < 0x8000) not in `understood`, in order and
    /// without duplicates: what a 420 response lists in UNKNOWN-ATTRIBUTES (§6.3.1). Empty, and
    /// allocation-free, for every well-formed ICE check.
    public func unknownComprehensionRequired(
        understood: Set<STUNAttributeType> = STUNAttributeType.understoodByICE
    ) -> [STUNAttributeType] {
        var unknown: [STUNAttributeType] = []
        for attribute in protectedAttributes
        where attribute.type.isComprehensionRequired && !understood.contains(attribute.type) {
            if !unknown.contains(attribute.type) { unknown.append(attribute.type) }
        }
        return unknown
    }

    func text(_ type: STUNAttributeType) throws(STUNError) -> String? {
        guard let attribute = attribute(type) else { return nil }
        guard let text = String(validating: value(of: attribute), as: UTF8.self) else {
            throw .invalidUTF8(type: type)
        }
        return text
    }

    func fixed(_ type: STUNAttributeType, length: Int) throws(STUNError) -> STUNAttribute? {
        guard let attribute = attribute(type) else { return nil }
        guard attribute.length == length else { throw .invalidAttributeLength(type: type, length: attribute.length) }
        return attribute
    }

    func tieBreaker(_ type: STUNAttributeType) throws(STUNError) -> UInt64? {
        guard let attribute = try fixed(type, length: 8) else { return nil }
        return bytes.readUInt64(at: attribute.valueRange.lowerBound)
    }
}
