import Foundation

/// Readers for the model's floats, enums, ARNs and lists of structures.
extension RequestFields {
    /// A number (the model's `float`) within `range`.
    func number(_ field: String, range: ClosedRange<Double>) throws(APIError) -> Double? {
        guard let value = members[field], value != .null else { return nil }
        guard case .number(let number) = value, number.isFinite else {
            throw .validation("\(name(field)): must be a number, got \(value.typeName)")
        }
        guard range.contains(number) else {
            throw .validation("\(name(field)): must be between \(Self.text(range.lowerBound)) and \(Self.text(range.upperBound)), got \(Self.text(number))")
        }
        return number
    }

    /// One of the model's enum values.
    func enumeration(_ field: String, allowed: [String], required: Bool = false) throws(APIError) -> String? {
        guard let text = try string(field, required: required) else { return nil }
        guard allowed.contains(text) else {
            throw .validation("\(name(field)): must be one of \(allowed.joined(separator: ", ")); got '\(text)'")
        }
        return text
    }

    /// One of the model's enum values, as the typed enumeration whose raw values they are.
    func enumeration<Value: RawRepresentable & CaseIterable>(_ field: String, of type: Value.Type) throws(APIError) -> Value?
        where Value.RawValue == String {
        try enumeration(field, allowed: Value.allCases.map(\.rawValue)).flatMap(Value.init(rawValue:))
    }

    /// An ARN of `type` matching the model's pattern `arn:aws:ivs:[a-z0-9-]+:[0-9]+:<type>/[a-zA-Z0-9-]+`
    /// (1–128 characters). An empty string is nil when `emptyIsNone` (the `ivs` model's `^$|…` ARNs).
    func arn(_ field: String, type: ResourceNames.ResourceType, required: Bool = false, emptyIsNone: Bool = false) throws(APIError) -> String? {
        guard let arn = try string(field, required: required, length: (emptyIsNone ? 0 : 1)...128) else { return nil }
        if emptyIsNone, arn.isEmpty { return nil }
        guard FieldRules.matchesARN(arn, type: type.rawValue) else {
            throw .validation("\(name(field)): must match arn:aws:ivs:<region>:<account>:\(type.rawValue)/<id> ([a-zA-Z0-9-]+)")
        }
        return arn
    }

    /// A list of objects, each read with `allowed` members at path `field[i]`.
    func objects(_ field: String, count: ClosedRange<Int>, allowed: Set<String>) throws(APIError) -> [RequestFields]? {
        guard let items = try list(field, count: count) else { return nil }
        var result: [RequestFields] = []
        for (index, item) in items.enumerated() {
            let path = "\(name(field))[\(index)]"
            guard case .object(let members) = item else { throw .validation("\(path): must be an object, got \(item.typeName)") }
            result.append(try RequestFields(path: path, members: members, allowed: allowed))
        }
        return result
    }

    /// A list of strings.
    func strings(_ field: String, count: ClosedRange<Int>) throws(APIError) -> [String]? {
        guard let items = try list(field, count: count) else { return nil }
        var result: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else { throw .validation("\(name(field))[\(index)]: must be a string, got \(item.typeName)") }
            result.append(text)
        }
        return result
    }

    private static func text(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }
}
