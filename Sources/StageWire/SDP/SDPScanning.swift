// Small, strict readers shared by the SDP grammars: fields split on spaces, decimal numbers
// with digits only (no sign, no spaces), tokens.

extension StringProtocol {
    /// The space-separated fields of an SDP value (RFC 8866 §9 separates fields by one SP;
    /// repeated spaces are tolerated and collapse).
    var sdpFields: [SubSequence] { split(separator: " ") }
}

/// Parses an unsigned decimal of ASCII digits only; `nil` when empty, signed, non-digit or too large.
func sdpDecimal<T: FixedWidthInteger & UnsignedInteger>(_ text: some StringProtocol, as: T.Type = T.self) -> T? {
    let utf8 = text.utf8
    guard !utf8.isEmpty, utf8.count <= 20 else { return nil }
    var value: T = 0
    for byte in utf8 {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
        let (sum, overflow2) = shifted.addingReportingOverflow(T(byte - UInt8(ascii: "0")))
        guard !overflow1, !overflow2 else { return nil }
        value = sum
    }
    return value
}

/// Whether `text` is one or more ASCII digits (of any length).
func isDigits(_ text: some StringProtocol) -> Bool {
    !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
}

/// Reads a decimal or throws `rule`.
func sdpRequireDecimal<T: FixedWidthInteger & UnsignedInteger>(
    _ text: some StringProtocol, as type: T.Type, _ rule: @autoclosure () -> String
) throws(SDPValueError) -> T {
    guard let value = sdpDecimal(text, as: type) else { throw SDPValueError(rule()) }
    return value
}

/// RFC 8851 §10 rid-id and RFC 8853 §5.1 sc-id: letters, digits, '-' and '_'.
func isRIDIdentifier(_ text: some StringProtocol) -> Bool {
    !text.isEmpty && text.utf8.allSatisfy { byte in
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}

/// A `name[=value]` pair, as fmtp and rid parameters are written.
public struct SDPParameter: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var value: String?

    public init(name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }

    /// Splits `name=value` at the first `=`; without `=`, the whole text is the name.
    init(parsing text: some StringProtocol) {
        if let equals = text.firstIndex(of: "=") {
            name = String(text[..<equals])
            value = String(text[text.index(after: equals)...])
        } else {
            name = String(text)
            value = nil
        }
    }

    public var description: String { value.map { "\(name)=\($0)" } ?? name }
}

extension Array where Element == SDPParameter {
    /// The value of the first parameter called `name` (`nil` if absent or valueless).
    public subscript(parameter name: String) -> String? {
        first { $0.name == name }?.value
    }
}
