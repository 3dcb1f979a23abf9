/// A STUN attribute type (RFC 8489 §14, §18.3; ICE's from RFC 8445 §16.1; TURN's from
/// RFC 8656 §18 in `STUNAttributeType+TURN.swift`).
///
/// Types below 0x8000 are comprehension-required: a receiver that does not understand one must
/// reject the request with 420 (§6.3.1) listing it in UNKNOWN-ATTRIBUTES.
public struct STUNAttributeType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    // RFC 8489 §18.3.1, comprehension-required.
    public static let mappedAddress = STUNAttributeType(rawValue: 0x0001)
    public static let username = STUNAttributeType(rawValue: 0x0006)
    public static let messageIntegrity = STUNAttributeType(rawValue: 0x0008)
    public static let errorCode = STUNAttributeType(rawValue: 0x0009)
    public static let unknownAttributes = STUNAttributeType(rawValue: 0x000A)
    public static let realm = STUNAttributeType(rawValue: 0x0014)
    public static let nonce = STUNAttributeType(rawValue: 0x0015)
    public static let messageIntegritySHA256 = STUNAttributeType(rawValue: 0x001C)
    public static let passwordAlgorithm = STUNAttributeType(rawValue: 0x001D)
    public static let userhash = STUNAttributeType(rawValue: 0x001E)
    public static let xorMappedAddress = STUNAttributeType(rawValue: 0x0020)
    // RFC 8445 §16.1, comprehension-required.
    public static let priority = STUNAttributeType(rawValue: 0x0024)
    public static let useCandidate = STUNAttributeType(rawValue: 0x0025)
    // RFC 8489 §18.3.2, comprehension-optional.
    public static let passwordAlgorithms = STUNAttributeType(rawValue: 0x8002)
    public static let alternateDomain = STUNAttributeType(rawValue: 0x8003)
    public static let software = STUNAttributeType(rawValue: 0x8022)
    public static let alternateServer = STUNAttributeType(rawValue: 0x8023)
    public static let fingerprint = STUNAttributeType(rawValue: 0x8028)
    // RFC 8445 §16.1, comprehension-optional.
    public static let iceControlled = STUNAttributeType(rawValue: 0x8029)
    public static let iceControlling = STUNAttributeType(rawValue: 0x802A)

    /// §14: types 0x0000–0x7FFF must be understood by the receiver.
    public var isComprehensionRequired: Bool { rawValue < 0x8000 }

    /// The comprehension-required types this module reads: what an ICE agent understands in a
    /// Binding request.
    public static let understoodByICE: Set<STUNAttributeType> = [
        .mappedAddress, .username, .messageIntegrity, .messageIntegritySHA256, .errorCode,
        .unknownAttributes, .xorMappedAddress, .priority, .useCandidate,
    ]

    public var description: String {
        switch self {
        case .mappedAddress: "MAPPED-ADDRESS"
        case .username: "USERNAME"
        case .messageIntegrity: "MESSAGE-INTEGRITY"
        case .errorCode: "ERROR-CODE"
        case .unknownAttributes: "UNKNOWN-ATTRIBUTES"
        case .realm: "REALM"
        case .nonce: "NONCE"
        case .messageIntegritySHA256: "MESSAGE-INTEGRITY-SHA256"
        case .passwordAlgorithm: "PASSWORD-ALGORITHM"
        case .userhash: "USERHASH"
        case .xorMappedAddress: "XOR-MAPPED-ADDRESS"
        case .priority: "PRIORITY"
        case .useCandidate: "USE-CANDIDATE"
        case .passwordAlgorithms: "PASSWORD-ALGORITHMS"
        case .alternateDomain: "ALTERNATE-DOMAIN"
        case .software: "SOFTWARE"
        case .alternateServer: "ALTERNATE-SERVER"
        case .fingerprint: "FINGERPRINT"
        case .iceControlled: "ICE-CONTROLLED"
        case .iceControlling: "ICE-CONTROLLING"
        default: turnName ?? "attribute \(hex(rawValue))"
        }
    }
}

/// One attribute of a parsed message: its type and where its value lies in
/// ``STUNMessage/bytes``. Reading the value is ``STUNMessage/value(of:)``; nothing is copied
/// until a caller asks.
public struct STUNAttribute: Hashable, Sendable {
    public let type: STUNAttributeType
    /// Offset of the attribute's 4-byte header in the message.
    public let offset: Int
    /// The value's length, without padding.
    public let length: Int

    /// Offsets of the value in the message.
    public var valueRange: Range<Int> { offset + 4 ..< offset + 4 + length }
    /// Offset of the next attribute: the value padded to a multiple of 4 (§14).
    public var end: Int { offset + 4 + STUNAttribute.padded(length) }

    /// `length` rounded up to the 4-byte boundary attribute values are padded to (§14).
    @inlinable
    public static func padded(_ length: Int) -> Int { (length + 3) & ~3 }
}
