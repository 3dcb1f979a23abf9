/// The value of ERROR-CODE (RFC 8489 §14.8): a three-digit code and a UTF-8 reason phrase.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           Reserved, should be 0         |Class|     Number    |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |      Reason Phrase (variable)                                ..
/// ```
public struct STUNErrorCode: Hashable, Sendable, CustomStringConvertible {
    /// 300–699: hundreds digit is the class (3–6), the rest the number (0–99).
    public var code: Int
    public var reason: String

    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    // §14.8 and RFC 8445 §7.3.1.1 codes.
    public static let tryAlternate = 300
    public static let badRequest = 400
    public static let unauthorized = 401
    public static let unknownAttribute = 420
    public static let staleNonce = 438
    /// RFC 8445 §7.3.1.1: both agents claim the same ICE role.
    public static let roleConflict = 487
    public static let serverError = 500

    public var description: String { "\(code) \(reason)" }

    /// §14.8: the reason phrase is at most 127 characters and 763 bytes.
    static let maximumReasonBytes = STUNMessageBuilder.maximumTextBytes

    static func decode(_ value: ArraySlice<UInt8>) throws(STUNError) -> STUNErrorCode {
        guard value.count >= 4 else {
            throw .invalidAttributeLength(type: .errorCode, length: value.count)
        }
        let start = value.startIndex
        let errorClass = value[start + 2] & 0x07
        let number = value[start + 3]
        guard (3...6).contains(errorClass), number < 100 else {
            throw .invalidErrorCode(errorClass: errorClass, number: number)
        }
        guard let reason = String(validating: value[(start + 4)...], as: UTF8.self) else {
            throw .invalidUTF8(type: .errorCode)
        }
        return STUNErrorCode(code: Int(errorClass) * 100 + Int(number), reason: reason)
    }

    func encode() throws(STUNError) -> [UInt8] {
        guard (300...699).contains(code) else {
            throw .invalidErrorCode(errorClass: UInt8(clamping: code / 100), number: UInt8(clamping: code % 100))
        }
        let reasonBytes = Array(reason.utf8)
        guard reasonBytes.count <= Self.maximumReasonBytes else {
            throw .valueTooLong(type: .errorCode, length: reasonBytes.count, limit: Self.maximumReasonBytes)
        }
        return [0, 0, UInt8(code / 100), UInt8(code % 100)] + reasonBytes
    }
}
