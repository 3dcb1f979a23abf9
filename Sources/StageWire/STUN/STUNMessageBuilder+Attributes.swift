/// Typed appends for the attributes RFC 8489 §14 and RFC 8445 §16.1 define.
extension STUNMessageBuilder {
    /// §14.3, §14.8, §14.14: text values are at most 763 bytes of UTF-8.
    public static let maximumTextBytes = 763

    /// USERNAME (§14.3). For an ICE check: `"<remote ufrag>:<local ufrag>"`.
    public mutating func appendUsername(_ username: String) throws(STUNError) {
        try appendText(.username, username)
    }

    /// SOFTWARE (§14.14).
    public mutating func appendSoftware(_ software: String) throws(STUNError) {
        try appendText(.software, software)
    }

    /// XOR-MAPPED-ADDRESS (§14.2), XORed with the cookie and this message's transaction ID.
    public mutating func appendXORMappedAddress(_ address: STUNAddress) {
        appendUnchecked(.xorMappedAddress, value: address.encode(xorKey: STUNAddress.xorKey(transactionID)))
    }

    /// MAPPED-ADDRESS (§14.1), in the clear.
    public mutating func appendMappedAddress(_ address: STUNAddress) {
        appendUnchecked(.mappedAddress, value: address.encode(xorKey: nil))
    }

    /// ERROR-CODE (§14.8).
    /// - Throws: `invalidErrorCode` outside 300–699, `valueTooLong` for a reason over 763 bytes.
    public mutating func appendErrorCode(_ error: STUNErrorCode) throws(STUNError) {
        try append(.errorCode, value: error.encode())
    }

    /// UNKNOWN-ATTRIBUTES (§14.9).
    public mutating func appendUnknownAttributes(_ types: [STUNAttributeType]) throws(STUNError) {
        var value: [UInt8] = []
        for type in types { value.appendBigEndian(type.rawValue) }
        try append(.unknownAttributes, value: value)
    }

    /// PRIORITY (RFC 8445 §7.1.1).
    public mutating func appendPriority(_ priority: UInt32) {
        var value: [UInt8] = []
        value.appendBigEndian(priority)
        appendUnchecked(.priority, value: value)
    }

    /// USE-CANDIDATE (RFC 8445 §7.1.2): no value.
    public mutating func appendUseCandidate() {
        appendUnchecked(.useCandidate, value: EmptyCollection<UInt8>())
    }

    /// ICE-CONTROLLED with the agent's tie-breaker (RFC 8445 §7.1.3).
    public mutating func appendICEControlled(tieBreaker: UInt64) {
        var value: [UInt8] = []
        value.appendBigEndian(tieBreaker)
        appendUnchecked(.iceControlled, value: value)
    }

    /// ICE-CONTROLLING with the agent's tie-breaker (RFC 8445 §7.1.3).
    public mutating func appendICEControlling(tieBreaker: UInt64) {
        var value: [UInt8] = []
        value.appendBigEndian(tieBreaker)
        appendUnchecked(.iceControlling, value: value)
    }

    mutating func appendText(_ type: STUNAttributeType, _ text: String) throws(STUNError) {
        let utf8 = Array(text.utf8)
        guard utf8.count <= Self.maximumTextBytes else {
            throw .valueTooLong(type: type, length: utf8.count, limit: Self.maximumTextBytes)
        }
        try append(type, value: utf8)
    }
}
