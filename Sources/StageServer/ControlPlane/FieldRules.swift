import Foundation

/// The constraints of botocore's `ivs-realtime` model, shared by the operations.
enum FieldRules {
    static func isNameCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_")
    }
    static let nameRule = "allowed: letters, digits, '-' and '_' ([a-zA-Z0-9-_]*)"

    static func isTokenCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || "+/=_-".contains(c))
    }

    /// IVS: the attributes of a token are at most 1 KB in total (keys and values, UTF-8).
    static let maxAttributesBytes = 1024

    static func checkAttributes(_ attributes: [String: String], field: String) throws(APIError) {
        let total = attributes.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        guard total <= maxAttributesBytes else {
            throw .validation("\(field): keys and values total \(total) bytes; the limit is \(maxAttributesBytes) bytes (1 KB)")
        }
    }

    static func checkTags(_ tags: [String: String], field: String) throws(APIError) {
        guard tags.count <= 50 else { throw .validation("\(field): at most 50 tags, got \(tags.count)") }
        for (key, value) in tags {
            guard (1...128).contains(key.count) else { throw .validation("\(field): tag keys are 1–128 characters, got '\(key)'") }
            guard value.count <= 256 else { throw .validation("\(field).\(key): tag values are at most 256 characters") }
        }
    }

    /// PUBLISH and/or SUBSCRIBE; IVS grants both when none are given.
    static func capabilities(_ items: [RequestJSON]?, field: String) throws(APIError) -> [String] {
        guard let items else { return ["PUBLISH", "SUBSCRIBE"] }
        var result: [String] = []
        for item in items {
            guard case .string(let text) = item, text == "PUBLISH" || text == "SUBSCRIBE" else {
                throw .validation("\(field): each capability must be \"PUBLISH\" or \"SUBSCRIBE\"")
            }
            if !result.contains(text) { result.append(text) }
        }
        return result
    }

    /// The `ivs` model's tag pattern `[\p{L}\p{Z}\p{N}_.:/=+\-@]`, for channel tags.
    static func isIVSTagCharacter(_ c: Character) -> Bool {
        c.isLetter || c.isNumber || c.unicodeScalars.allSatisfy { $0.properties.generalCategory == .spaceSeparator } || "_.:/=+-@".contains(c)
    }

    /// `checkTags` and the `ivs` model's tag characters.
    static func checkIVSTags(_ tags: [String: String], field: String) throws(APIError) {
        try checkTags(tags, field: field)
        for (key, value) in tags.sorted(by: { $0.key < $1.key }) {
            if let bad = key.first(where: { !isIVSTagCharacter($0) }) {
                throw .validation("\(field): character '\(bad)' not allowed in tag key '\(key)'; allowed: letters, digits, spaces and _.:/=+-@")
            }
            if let bad = value.first(where: { !isIVSTagCharacter($0) }) {
                throw .validation("\(field).\(key): character '\(bad)' not allowed in a tag value; allowed: letters, digits, spaces and _.:/=+-@")
            }
        }
    }

    /// `arn:aws:ivs:[a-z0-9-]+:[0-9]+:<type>/[a-zA-Z0-9-]+`, whole.
    static func matchesARN(_ arn: String, type: String) -> Bool {
        let parts = arn.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0] == "arn", parts[1] == "aws", parts[2] == "ivs" else { return false }
        guard !parts[3].isEmpty, parts[3].allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }) else { return false }
        guard !parts[4].isEmpty, parts[4].allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
        let resource = parts[5]
        guard resource.hasPrefix(type + "/") else { return false }
        let id = resource.dropFirst(type.count + 1)
        return !id.isEmpty && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
    }

    static let defaultTokenMinutes = 720
    static let tokenMinutes = 1...20160
}

/// Pagination tokens: the position after the last item returned, opaque to clients.
enum PageToken {
    static func encode(_ seq: Int64) -> String { "p" + String(seq) }

    static func decode(_ token: String?, field: String = "nextToken") throws(APIError) -> Int64? {
        guard let token, !token.isEmpty else { return nil }
        guard token.hasPrefix("p"), let seq = Int64(token.dropFirst()), seq >= 0 else {
            throw .validation("\(field): not a token returned by this server")
        }
        return seq
    }
}
