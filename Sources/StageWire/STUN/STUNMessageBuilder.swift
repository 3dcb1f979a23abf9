/// Serializes a STUN message (RFC 8489 §5, §14) into one growing array.
///
/// Append attributes in order, then finish: ``finish(fingerprint:)`` or
/// ``finish(integrityKey:hmacSHA1:fingerprint:)``, which add MESSAGE-INTEGRITY and then
/// FINGERPRINT (the order §14.5 and §14.7 require), each computed with the header's length field
/// already counting the attribute being added.
///
/// ```swift
/// var builder = STUNMessageBuilder(type: .bindingSuccess, transactionID: request.transactionID)
/// builder.appendXORMappedAddress(source)
/// let datagram = builder.finish(integrityKey: STUNMessage.shortTermKey(password: localPwd),
///                               hmacSHA1: hmacSHA1)
/// ```
public struct STUNMessageBuilder: Sendable {
    /// The bytes so far; the length field is kept current after every append.
    public private(set) var bytes: [UInt8]
    public let transactionID: STUNTransactionID
    /// The byte padding values to 4 bytes (§14: "any value"; 0 by default). RFC 5769's vectors use
    /// 0x20, which tests set to reproduce them byte for byte.
    public var paddingByte: UInt8 = 0

    /// §5: the length field is 16 bits.
    public static let maximumLength = 0xFFFF

    public init(type: STUNMessageType, transactionID: STUNTransactionID = .random()) {
        self.transactionID = transactionID
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        bytes.appendBigEndian(type.rawValue)
        bytes.appendBigEndian(UInt16(0))
        bytes.appendBigEndian(STUNMessage.magicCookie)
        bytes.appendBigEndian(transactionID.high)
        bytes.appendBigEndian(transactionID.middle)
        bytes.appendBigEndian(transactionID.low)
        self.bytes = bytes
    }

    /// Appends one attribute: type, length, value and padding (§14).
    /// - Throws: `valueTooLong` when the value or the whole message would not fit 16-bit lengths.
    public mutating func append<Value: Collection>(_ type: STUNAttributeType, value: Value) throws(STUNError)
    where Value.Element == UInt8 {
        let length = value.count
        let limit = Self.maximumLength - (bytes.count - STUNMessage.headerLength) - 4
        guard STUNAttribute.padded(length) <= limit else {
            throw .valueTooLong(type: type, length: length, limit: max(0, limit))
        }
        appendUnchecked(type, value: value)
    }

    /// Appends an attribute known to fit (fixed-size values of this module).
    mutating func appendUnchecked<Value: Collection>(_ type: STUNAttributeType, value: Value)
    where Value.Element == UInt8 {
        let length = value.count
        bytes.appendBigEndian(type.rawValue)
        bytes.appendBigEndian(UInt16(truncatingIfNeeded: length))
        bytes.append(contentsOf: value)
        let padding = STUNAttribute.padded(length) - length
        if padding > 0 { bytes.append(contentsOf: repeatElement(paddingByte, count: padding)) }
        updateLength()
    }

    mutating func updateLength() {
        bytes.writeUInt16(UInt16(truncatingIfNeeded: bytes.count - STUNMessage.headerLength), at: 2)
    }

    /// Appends MESSAGE-INTEGRITY (§14.5): HMAC-SHA1 of everything so far, with the length field
    /// counting the 24 bytes of this attribute. Nothing but FINGERPRINT should follow.
    public mutating func appendMessageIntegrity(key: [UInt8], hmacSHA1: STUNHMAC) {
        let offset = bytes.count
        let mac = STUNMessage.mac(of: bytes, upTo: offset, macLength: 20, key: key, hmac: hmacSHA1)
        appendUnchecked(.messageIntegrity, value: mac.prefix(20) + repeatElement(0, count: max(0, 20 - mac.count)))
    }

    /// Appends FINGERPRINT (§14.7): CRC-32 of everything so far, with the length field counting
    /// the 8 bytes of this attribute, XOR 0x5354554E. It must be the last attribute.
    public mutating func appendFingerprint() {
        let offset = bytes.count
        bytes.writeUInt16(UInt16(truncatingIfNeeded: offset + 8 - STUNMessage.headerLength), at: 2)
        var value: [UInt8] = []
        value.appendBigEndian(STUNMessage.fingerprint(of: bytes, upTo: offset))
        appendUnchecked(.fingerprint, value: value)
    }

    /// The finished message, with FINGERPRINT last when asked.
    public consuming func finish(fingerprint: Bool = false) -> [UInt8] {
        if fingerprint { appendFingerprint() }
        return bytes
    }

    /// The finished message with MESSAGE-INTEGRITY and then, by default, FINGERPRINT.
    /// - Parameters:
    ///   - integrityKey: for ICE, ``STUNMessage/shortTermKey(password:)`` of the `ice-pwd` the
    ///     receiver checks with (a response uses the local password, a request the remote one).
    ///   - hmacSHA1: HMAC-SHA1, e.g. swift-crypto's `HMAC<Insecure.SHA1>` (see ``STUNHMAC``).
    ///   - fingerprint: whether to end with FINGERPRINT (ICE requires it, RFC 8445 §7.2.2).
    public consuming func finish(integrityKey: [UInt8], hmacSHA1: STUNHMAC, fingerprint: Bool = true) -> [UInt8] {
        appendMessageIntegrity(key: integrityKey, hmacSHA1: hmacSHA1)
        if fingerprint { appendFingerprint() }
        return bytes
    }
}
