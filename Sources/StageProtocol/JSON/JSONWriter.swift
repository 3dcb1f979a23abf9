/// Writes JSON text byte for byte as `SignalCodec`'s Foundation encoder would (`.sortedKeys`,
/// `.withoutEscapingSlashes`): no whitespace, keys in UTF-8 byte order, the escapes of RFC 8259 §7
/// with `\b \t \n \f \r` and lowercase `\u00xx` for the other control characters.
///
/// Callers write the members of a type in sorted key order themselves; the round-trip tests
/// compare every message type with Foundation's output.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// True until the current object or array has its first member.
    private var atStart = true

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
        atStart = true
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        atStart = false
    }

    /// A member's key; its value follows.
    mutating func key(_ key: String) {
        if !atStart { bytes.append(UInt8(ascii: ",")) }
        string(key)
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func array<C: Collection>(_ elements: C, _ write: (inout JSONWriter, C.Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        atStart = true
        for element in elements {
            if !atStart { bytes.append(UInt8(ascii: ",")) }
            write(&self, element)
        }
        bytes.append(UInt8(ascii: "]"))
        atStart = false
    }

    /// A `[String: String]` object, keys sorted by their UTF-8 bytes as Foundation sorts them.
    mutating func stringDictionary(_ dictionary: [String: String]) {
        beginObject()
        for key in dictionary.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            self.key(key)
            string(dictionary[key]!)
        }
        endObject()
    }

    mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
        atStart = false
    }

    mutating func int(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
        atStart = false
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case 0x08: bytes.append(contentsOf: #"\b"#.utf8)
            case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
            case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
            case 0x0C: bytes.append(contentsOf: #"\f"#.utf8)
            case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
            case 0..<0x20:
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        atStart = false
    }
}
