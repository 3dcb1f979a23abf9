/// Typed reads of an object's members with the rules of Swift's synthesized `Decodable`:
/// a required member must be present and not null; an optional one may be missing or null;
/// members nobody asks for are ignored. Anything else declines the fast path.
extension FastPathJSON {
    typealias Declined = JSONFastPathDeclined

    func required(_ key: String) throws(Declined) -> FastPathJSON {
        guard let value = self[key], !value.isNull else { throw Declined() }
        return value
    }

    func optional(_ key: String) -> FastPathJSON? {
        guard let value = self[key], !value.isNull else { return nil }
        return value
    }

    func string(_ key: String) throws(Declined) -> String { try required(key).asString() }

    func optionalString(_ key: String) throws(Declined) -> String? { try optional(key)?.asString() }

    func int(_ key: String) throws(Declined) -> Int {
        guard case .integer(let value) = try required(key) else { throw Declined() }
        return value
    }

    func bool(_ key: String) throws(Declined) -> Bool {
        guard case .bool(let value) = try required(key) else { throw Declined() }
        return value
    }

    func array(_ key: String) throws(Declined) -> [FastPathJSON] {
        guard case .array(let elements) = try required(key) else { throw Declined() }
        return elements
    }

    /// A member that must itself be an object.
    func object(_ key: String) throws(Declined) -> FastPathJSON {
        let value = try required(key)
        guard case .object = value else { throw Declined() }
        return value
    }

    /// A member that may be missing or null, and otherwise must be an object.
    func optionalObject(_ key: String) throws(Declined) -> FastPathJSON? {
        guard let value = optional(key) else { return nil }
        guard case .object = value else { throw Declined() }
        return value
    }

    /// A `String`- or `Int`-backed enum member; an unknown raw value declines.
    func value<T: RawRepresentable>(_ key: String, as type: T.Type) throws(Declined) -> T where T.RawValue == String {
        guard let value = T(rawValue: try string(key)) else { throw Declined() }
        return value
    }

    func value<T: RawRepresentable>(_ key: String, as type: T.Type) throws(Declined) -> T where T.RawValue == Int {
        guard let value = T(rawValue: try int(key)) else { throw Declined() }
        return value
    }

    /// A `[String: String]` member.
    func stringDictionary(_ key: String) throws(Declined) -> [String: String] {
        guard case .object(let members) = try required(key) else { throw Declined() }
        var dictionary: [String: String] = [:]
        dictionary.reserveCapacity(members.count)
        for member in members { dictionary[member.key] = try member.value.asString() }
        return dictionary
    }

    func asString() throws(Declined) -> String {
        guard case .string(let value) = self else { throw Declined() }
        return value
    }
}
