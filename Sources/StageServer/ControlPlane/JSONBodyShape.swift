import Foundation

/// A pass over a request body before it is decoded, in time proportional to its size: nesting
/// deeper than ``maxDepth`` and a key repeated in one object (RFC 8259 §4 leaves its meaning to
/// the reader; Foundation keeps the first value and never checks the others) are refused with
/// a ValidationException. Foundation's decoder slows down sharply with depth (a 1 KB body
/// nested 512 deep took 1.8 s), and IVS bodies nest a few levels. The rest of JSON's grammar
/// is the decoder's to check.
enum JSONBodyShape {
    /// IVS request bodies nest at most 5 levels (StartComposition's destinations).
    static let maxDepth = 16

    private enum Frame {
        case object(keys: Set<[UInt8]>, expectsKey: Bool)
        case array
    }

    static func check(_ body: [UInt8]) throws(APIError) {
        var stack: [Frame] = []
        var index = 0
        while index < body.count {
            let byte = body[index]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard stack.count < maxDepth else { throw .validation("request body: nested deeper than \(maxDepth) levels") }
                stack.append(byte == UInt8(ascii: "{") ? .object(keys: [], expectsKey: true) : .array)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = stack.popLast()
            case UInt8(ascii: ","):
                if case .object(let keys, _)? = stack.last { stack[stack.count - 1] = .object(keys: keys, expectsKey: true) }
            case UInt8(ascii: "\""):
                let end = stringEnd(body, from: index)
                if case .object(var keys, true)? = stack.last {
                    let key = Array(body[(index + 1)..<min(end, body.count)])
                    let name = key.contains(UInt8(ascii: "\\")) ? unescaped(key) : key
                    guard keys.insert(name).inserted else {
                        throw .validation("request body: key \"\(String(decoding: name, as: UTF8.self).prefix(64))\" appears twice in one object")
                    }
                    stack[stack.count - 1] = .object(keys: keys, expectsKey: false)
                }
                index = end
            default:
                break
            }
            index += 1
        }
    }

    /// The index of the quote that ends the string opening at `start` (or the body's end).
    private static func stringEnd(_ body: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < body.count {
            switch body[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index
            default: index += 1
            }
        }
        return body.count
    }

    /// A key with escapes, as the decoder will read it (`"\u0061"` is `"a"`); as written when it
    /// does not decode (the decoder then refuses the body anyway).
    private static func unescaped(_ key: [UInt8]) -> [UInt8] {
        guard let text = try? JSONDecoder().decode(String.self, from: Data([UInt8(ascii: "\"")] + key + [UInt8(ascii: "\"")])) else {
            return key
        }
        return Array(text.utf8)
    }
}
