/// A JSON value (RFC 8259) as the signaling fast path reads it.
///
/// Deliberately narrower than JSON: numbers must be integers that fit `Int`, objects may not
/// repeat a key, and nesting stops at `FastPathJSON.maxDepth`. Text outside that subset is not an
/// error of the protocol — `SignalCodec` hands it to Foundation's `JSONDecoder`, which decides.
enum FastPathJSON {
    case null
    case bool(Bool)
    case integer(Int)
    case string(String)
    case array([FastPathJSON])
    /// Members in the order they appear; keys are unique.
    case object([(key: String, value: FastPathJSON)])

    static let maxDepth = 32

    /// The member named `key` of an object.
    subscript(key: String) -> FastPathJSON? {
        guard case .object(let members) = self else { return nil }
        for member in members where member.key == key { return member.value }
        return nil
    }

    var isNull: Bool {
        if case .null = self { true } else { false }
    }
}

/// Why the fast path declined a text (the caller falls back to Foundation).
struct JSONFastPathDeclined: Error {}

extension FastPathJSON {
    /// Parses one JSON text: a value with optional whitespace around it (RFC 8259 §2).
    static func parse(_ text: String) throws(JSONFastPathDeclined) -> FastPathJSON {
        var text = text
        let parsed: FastPathJSON? = text.withUTF8 { bytes in
            var reader = JSONReader(bytes: bytes)
            return reader.document()
        }
        guard let parsed else { throw JSONFastPathDeclined() }
        return parsed
    }
}

/// A recursive-descent reader over UTF-8 bytes; every method returns nil on anything it declines.
private struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func document() -> FastPathJSON? {
        guard let value = value(depth: 0) else { return nil }
        skipWhitespace()
        return index == bytes.count ? value : nil
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func value(depth: Int) -> FastPathJSON? {
        skipWhitespace()
        guard index < bytes.count, depth < FastPathJSON.maxDepth else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object(depth: depth)
        case UInt8(ascii: "["): return array(depth: depth)
        case UInt8(ascii: "\""): return string().map(FastPathJSON.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return integer()
        }
    }

    private mutating func literal(_ word: StaticString, _ result: FastPathJSON) -> FastPathJSON? {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return nil }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return nil }
        index += count
        return result
    }

    private mutating func object(depth: Int) -> FastPathJSON? {
        index += 1  // {
        var members: [(key: String, value: FastPathJSON)] = []
        // Seen keys in a set: a duplicate check by scanning the members was O(n²), 0.2 s of CPU
        // for a 64 KB frame of 9,000 keys before any token check.
        var keys: Set<String> = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
            guard keys.insert(key).inserted else { return nil }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let value = value(depth: depth + 1) else { return nil }
            members.append((key, value))
            skipWhitespace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            default: return nil
            }
        }
    }

    private mutating func array(depth: Int) -> FastPathJSON? {
        index += 1  // [
        var elements: [FastPathJSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            guard let element = value(depth: depth + 1) else { return nil }
            elements.append(element)
            skipWhitespace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: return nil
            }
        }
    }

    /// `-?(0|[1-9][0-9]*)` that fits `Int`; a fraction or exponent is declined.
    private mutating func integer() -> FastPathJSON? {
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let start = index
        var magnitude: UInt64 = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            magnitude = sum
            index += 1
        }
        let digits = index - start
        guard digits > 0, !(digits > 1 && bytes[start] == UInt8(ascii: "0")) else { return nil }
        if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) { return nil }
        if negative {
            guard magnitude <= UInt64(Int.max) + 1 else { return nil }
            return .integer(magnitude == UInt64(Int.max) + 1 ? Int.min : -Int(magnitude))
        }
        guard magnitude <= UInt64(Int.max) else { return nil }
        return .integer(Int(magnitude))
    }

    /// A string token (RFC 8259 §7); the reader stands on its opening quote.
    private mutating func string() -> String? {
        index += 1
        let start = index
        // Fast scan: no escapes is the common case.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { return nil }
            index += 1
        }
        var utf8 = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    UTF8.encode(scalar) { utf8.append($0) }
                default: return nil
                }
            default:
                if byte < 0x20 { return nil }
                utf8.append(byte)
                index += 1
            }
        }
        return nil
    }

    /// The scalar of `\uXXXX` (after the `u`), joining a UTF-16 surrogate pair; a lone surrogate is declined.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hex4() else { return nil }
        if (0xD800...0xDBFF).contains(high) {
            guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { return nil }
            index += 2
            guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        return Unicode.Scalar(high)
    }

    private mutating func hex4() -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}
