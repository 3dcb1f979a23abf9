import Foundation

/// The members of one JSON object of an API request, read with the model's constraints.
/// Every failure is a ValidationException whose message names the field and the rule.
struct RequestFields {
    let path: String
    let members: [String: RequestJSON]

    /// Parses a request body. An empty body is an empty object, as botocore sends for no input.
    static func parse(_ body: [UInt8], allowed: Set<String>) throws(APIError) -> RequestFields {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            return RequestFields(path: "", members: [:])
        }
        try JSONBodyShape.check(body)
        let value: RequestJSON
        do {
            value = try JSONDecoder().decode(RequestJSON.self, from: Data(body))
        } catch {
            throw .validation("request body: not valid JSON")
        }
        guard case .object(let members) = value else {
            throw .validation("request body: must be a JSON object, got \(value.typeName)")
        }
        return try RequestFields(path: "", members: members, allowed: allowed)
    }

    init(path: String, members: [String: RequestJSON]) {
        self.path = path
        self.members = members
    }

    init(path: String, members: [String: RequestJSON], allowed: Set<String>) throws(APIError) {
        if let unknown = members.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw .validation("\(path.isEmpty ? "" : path + ".")\(unknown): unknown field; allowed: \(allowed.sorted().joined(separator: ", "))")
        }
        self.init(path: path, members: members)
    }

    func name(_ field: String) -> String { path.isEmpty ? field : "\(path).\(field)" }

    private func value(_ field: String, required: Bool) throws(APIError) -> RequestJSON? {
        guard let value = members[field], value != .null else {
            if required { throw .validation("\(name(field)): required") }
            return nil
        }
        return value
    }

    func string(_ field: String, required: Bool = false, length: ClosedRange<Int> = 0...Int.max,
                allowed: ((Character) -> Bool)? = nil, rule: String = "") throws(APIError) -> String? {
        guard let value = try value(field, required: required) else { return nil }
        guard case .string(let text) = value else { throw .validation("\(name(field)): must be a string, got \(value.typeName)") }
        guard length.contains(text.count) else {
            throw .validation("\(name(field)): length must be \(length.lowerBound)–\(length.upperBound), got \(text.count)")
        }
        if let allowed, let bad = text.first(where: { !allowed($0) }) {
            throw .validation("\(name(field)): character '\(bad)' not allowed; \(rule)")
        }
        return text
    }

    func integer(_ field: String, range: ClosedRange<Int>) throws(APIError) -> Int? {
        guard let value = try value(field, required: false) else { return nil }
        guard case .number(let number) = value, number.rounded() == number, abs(number) < 1e15 else {
            throw .validation("\(name(field)): must be an integer, got \(value.typeName)")
        }
        guard range.contains(Int(number)) else {
            throw .validation("\(name(field)): must be between \(range.lowerBound) and \(range.upperBound), got \(Int(number))")
        }
        return Int(number)
    }

    func bool(_ field: String) throws(APIError) -> Bool? {
        guard let value = try value(field, required: false) else { return nil }
        guard case .bool(let flag) = value else { throw .validation("\(name(field)): must be a boolean, got \(value.typeName)") }
        return flag
    }

    func stringMap(_ field: String) throws(APIError) -> [String: String]? {
        guard let value = try value(field, required: false) else { return nil }
        guard case .object(let members) = value else { throw .validation("\(name(field)): must be an object of strings, got \(value.typeName)") }
        var map: [String: String] = [:]
        for (key, member) in members {
            guard case .string(let text) = member else {
                throw .validation("\(name(field)).\(key): must be a string, got \(member.typeName)")
            }
            map[key] = text
        }
        return map
    }

    func list(_ field: String, count: ClosedRange<Int>) throws(APIError) -> [RequestJSON]? {
        guard let value = try value(field, required: false) else { return nil }
        guard case .array(let items) = value else { throw .validation("\(name(field)): must be a list, got \(value.typeName)") }
        guard count.contains(items.count) else {
            throw .validation("\(name(field)): must have \(count.lowerBound)–\(count.upperBound) items, got \(items.count)")
        }
        return items
    }

    func object(_ field: String, allowed: Set<String>) throws(APIError) -> RequestFields? {
        guard let value = try value(field, required: false) else { return nil }
        guard case .object(let members) = value else { throw .validation("\(name(field)): must be an object, got \(value.typeName)") }
        return try RequestFields(path: name(field), members: members, allowed: allowed)
    }
}
