import Foundation

/// A parsed JSON value (RFC 8259) that keeps booleans, numbers and strings apart, so request
/// validation can say exactly which field has the wrong type.
enum RequestJSON: Decodable, Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([RequestJSON])
    case object([String: RequestJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([RequestJSON].self) { self = .array(value) }
        else { self = .object(try container.decode([String: RequestJSON].self)) }
    }

    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }
}
