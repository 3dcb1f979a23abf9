/// A STUN method: the 12-bit operation code of RFC 8489 §5 (Binding is 0x001).
public struct STUNMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 12-bit method number (0x000–0xFFF).
    public let rawValue: UInt16

    /// - Parameter rawValue: the method; bits above the 12th are cleared.
    public init(rawValue: UInt16) { self.rawValue = rawValue & 0x0FFF }

    /// RFC 8489 §18.2: Binding, the only method ICE uses. TURN's (RFC 8656 §17) are in
    /// `STUNMethod+TURN.swift`.
    public static let binding = STUNMethod(rawValue: 0x001)

    public var description: String {
        name ?? "method \(hex(rawValue))"
    }
}

/// The class of a STUN message: the two C bits of RFC 8489 §5.
public enum STUNClass: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case request = 0b00
    case indication = 0b01
    case successResponse = 0b10
    case errorResponse = 0b11

    public var description: String {
        switch self {
        case .request: "request"
        case .indication: "indication"
        case .successResponse: "success response"
        case .errorResponse: "error response"
        }
    }
}

/// The 14-bit STUN message type: method and class bits interleaved as RFC 8489 §5 draws them.
///
/// ```
///  0                 1
///  2  3  4 5 6 7 8 9 0 1 2 3 4 5
/// +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
/// |M |M |M|M|M|C|M|M|M|C|M|M|M|M|
/// |11|10|9|8|7|1|6|5|4|0|3|2|1|0|
/// +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct STUNMessageType: Hashable, Sendable, CustomStringConvertible {
    public var method: STUNMethod
    public var messageClass: STUNClass

    public init(method: STUNMethod, messageClass: STUNClass) {
        self.method = method
        self.messageClass = messageClass
    }

    /// Binding request (0x0001).
    public static let bindingRequest = STUNMessageType(method: .binding, messageClass: .request)
    /// Binding success response (0x0101).
    public static let bindingSuccess = STUNMessageType(method: .binding, messageClass: .successResponse)
    /// Binding error response (0x0111).
    public static let bindingError = STUNMessageType(method: .binding, messageClass: .errorResponse)
    /// Binding indication (0x0011), ICE keepalives.
    public static let bindingIndication = STUNMessageType(method: .binding, messageClass: .indication)

    // Bit masks of §5's figure.
    static let methodLowBits: UInt16 = 0x000F    // M0–M3, bits 0–3
    static let methodMiddleBits: UInt16 = 0x0070  // M4–M6, moved to bits 5–7
    static let methodHighBits: UInt16 = 0x0F80    // M7–M11, moved to bits 9–13
    static let classBit0: UInt16 = 0x0010         // C0 at bit 4
    static let classBit1: UInt16 = 0x0100         // C1 at bit 8

    /// Decodes the 16-bit type field; the two leading bits must already be known to be zero.
    public init(rawValue: UInt16) {
        let m = rawValue & Self.methodLowBits
            | (rawValue >> 1) & Self.methodMiddleBits
            | (rawValue >> 2) & Self.methodHighBits
        let c = (rawValue & Self.classBit0) >> 4 | (rawValue & Self.classBit1) >> 7
        self.method = STUNMethod(rawValue: m)
        self.messageClass = STUNClass(rawValue: UInt8(c)) ?? .request  // c is 0...3: always matches
    }

    /// The 16-bit type field as sent on the wire.
    public var rawValue: UInt16 {
        let m = method.rawValue
        let c = UInt16(messageClass.rawValue)
        return m & Self.methodLowBits
            | (m & Self.methodMiddleBits) << 1
            | (m & Self.methodHighBits) << 2
            | (c & 0b01) << 4
            | (c & 0b10) << 7
    }

    public var description: String { "\(method) \(messageClass)" }
}
