import Foundation
@testable import StageServer
import Testing

/// Request validation of the control plane: every malformed body is a ValidationException whose
/// message names the field. The checks call the same readers the operations call.
@Suite struct RequestFieldsTests {
    static func bytes(_ json: String) -> [UInt8] { Array(json.utf8) }

    /// The members CreateParticipantToken accepts.
    static let tokenFields: Set<String> = ["stageArn", "duration", "userId", "attributes", "capabilities"]
    /// The members CreateStage accepts.
    static let stageFields: Set<String> = ["name", "participantTokenConfigurations", "tags", "autoParticipantRecordingConfiguration"]
    /// The members ListParticipants accepts.
    static let listParticipantsFields: Set<String> = [
        "stageArn", "sessionId", "filterByUserId", "filterByPublished", "filterByState", "nextToken", "maxResults",
        "filterByRecordingState",
    ]

    /// CreateParticipantToken's reading of its body.
    static func tokenRequest(_ json: String) throws(APIError) -> TokenRequest {
        try TokenRequest(RequestFields.parse(bytes(json), allowed: tokenFields))
    }

    /// CreateStage / UpdateStage's reading of `name`.
    static func stageName(_ json: String) throws(APIError) -> String? {
        try RequestFields.parse(bytes(json), allowed: stageFields)
            .string("name", length: 0...128, allowed: FieldRules.isNameCharacter, rule: FieldRules.nameRule)
    }

    /// The List operations' reading of `maxResults` (`ControlPlane.maxResults`).
    static func maxResults(_ json: String) throws(APIError) -> Int {
        try RequestFields.parse(bytes(json), allowed: ["nextToken", "maxResults"]).integer("maxResults", range: 1...100) ?? 50
    }

    /// ListParticipants' reading of `filterByPublished`.
    static func filterByPublished(_ json: String) throws(APIError) -> Bool? {
        try RequestFields.parse(bytes(json), allowed: listParticipantsFields).bool("filterByPublished")
    }

    /// The List operations' reading of `nextToken`.
    static func nextToken(_ json: String) throws(APIError) -> Int64? {
        try PageToken.decode(RequestFields.parse(bytes(json), allowed: ["nextToken", "maxResults"])
            .string("nextToken", length: 0...1024))
    }

    /// One CreateStage `participantTokenConfigurations` entry, read as CreateStage reads it.
    static func stageTokenConfiguration(_ json: String) throws(APIError) -> TokenRequest {
        let fields = try RequestFields.parse(bytes(#"{"participantTokenConfigurations": [\#(json)]}"#), allowed: stageFields)
        guard let items = try fields.list("participantTokenConfigurations", count: 0...12),
              case .object(let members) = items[0] else { throw .validation("test: no configuration") }
        let config = try RequestFields(path: "participantTokenConfigurations[0]", members: members,
                                       allowed: ["duration", "userId", "attributes", "capabilities"])
        return try TokenRequest(config)
    }

    // MARK: Malformed bodies

    /// A malformed input, the reader that must refuse it, and what its message must contain.
    struct Malformed: Sendable, CustomTestStringConvertible {
        let name: String
        /// The field name (or "request body") the message must contain.
        let field: String
        /// A further piece of the message naming the rule, if any.
        let rule: String
        let read: @Sendable () throws -> Void

        init(_ name: String, field: String, rule: String = "", _ read: @escaping @Sendable () throws -> Void) {
            self.name = name
            self.field = field
            self.rule = rule
            self.read = read
        }

        var testDescription: String { name }
    }

    static let longName = String(repeating: "a", count: 129)
    static let bigValue = String(repeating: "x", count: 1024)

    static let malformed: [Malformed] = [
        // Truncated JSON.
        Malformed("not JSON: '{'", field: "request body", rule: "not valid JSON") { _ = try tokenRequest("{") },
        // Arbitrary text.
        Malformed("not JSON: plain text", field: "request body", rule: "not valid JSON") { _ = try tokenRequest("hello") },
        // Valid JSON, but a list.
        Malformed("a JSON array", field: "request body", rule: "must be a JSON object, got a list") { _ = try tokenRequest("[1, 2]") },
        // Valid JSON, but a string.
        Malformed("a JSON string", field: "request body", rule: "must be a JSON object, got a string") { _ = try tokenRequest(#""stage""#) },
        // Valid JSON, but a number.
        Malformed("a JSON number", field: "request body", rule: "got a number") { _ = try tokenRequest("42") },
        // A key twice in one object: Foundation keeps the first and never checks the second.
        Malformed("a repeated key", field: "request body", rule: #"key "name" appears twice"#) {
            _ = try stageName(#"{"name": "a", "name": "\q"}"#)
        },
        Malformed("a repeated key spelled with an escape", field: "request body", rule: #"key "name" appears twice"#) {
            _ = try stageName(#"{"name": "a", "n\u0061me": "b"}"#)
        },
        Malformed("a repeated key in a nested object", field: "request body", rule: #"key "k" appears twice"#) {
            _ = try tokenRequest(#"{"attributes": {"k": "1", "k": "2"}}"#)
        },
        // Nesting deeper than any IVS body: refused before the slow decoder sees it.
        Malformed("17 levels of nesting", field: "request body", rule: "nested deeper than 16 levels") {
            _ = try tokenRequest(#"{"attributes": "# + String(repeating: "[", count: 16) + String(repeating: "]", count: 16) + "}")
        },
        Malformed("512 levels of nesting", field: "request body", rule: "nested deeper than 16 levels") {
            _ = try tokenRequest(String(repeating: "[", count: 512) + String(repeating: "]", count: 512))
        },
        // name must be a string.
        Malformed(#"{"name": 5}"#, field: "name", rule: "must be a string, got a number") { _ = try stageName(#"{"name": 5}"#) },
        // A member the operation does not have.
        Malformed("unknown field 'colour'", field: "colour", rule: "unknown field") { _ = try stageName(#"{"colour": "red"}"#) },
        // Unknown field in a CreateParticipantToken body.
        Malformed("unknown field 'role' in a token request", field: "role", rule: "unknown field") {
            _ = try tokenRequest(#"{"role": "admin"}"#)
        },
        // name is at most 128 characters.
        Malformed("name of 129 characters", field: "name", rule: "length must be 0–128, got 129") {
            _ = try stageName(#"{"name": "\#(longName)"}"#)
        },
        // name allows [a-zA-Z0-9-_] only.
        Malformed("name with a space", field: "name", rule: "character ' ' not allowed") { _ = try stageName(#"{"name": "my stage"}"#) },
        // Non-ASCII letters are not allowed either.
        Malformed("name with a non-ASCII letter", field: "name", rule: "not allowed") { _ = try stageName(#"{"name": "café"}"#) },
        // One key plus a 1024-byte value exceeds the 1 KB total.
        Malformed("attributes over 1024 bytes in total", field: "attributes", rule: "the limit is 1024 bytes") {
            _ = try tokenRequest(#"{"attributes": {"k": "\#(bigValue)"}}"#)
        },
        // Many small attributes adding up past 1 KB.
        Malformed("attributes: 100 entries of 11 bytes", field: "attributes", rule: "total 1100 bytes") {
            let members = (0..<100).map { String(format: "\"k%03d\": \"vvvvvvv\"", $0) }.joined(separator: ", ")
            _ = try tokenRequest("{\"attributes\": {\(members)}}")
        },
        // Attribute values are strings.
        Malformed("attributes with a number value", field: "attributes.a", rule: "must be a string") {
            _ = try tokenRequest(#"{"attributes": {"a": 1}}"#)
        },
        // duration is 1–20160 minutes.
        Malformed("duration 0", field: "duration", rule: "between 1 and 20160") { _ = try tokenRequest(#"{"duration": 0}"#) },
        Malformed("duration 20161", field: "duration", rule: "between 1 and 20160") { _ = try tokenRequest(#"{"duration": 20161}"#) },
        // Negative durations as well.
        Malformed("duration -5", field: "duration", rule: "between 1 and 20160") { _ = try tokenRequest(#"{"duration": -5}"#) },
        // Only PUBLISH and SUBSCRIBE exist.
        Malformed(#"capabilities ["ADMIN"]"#, field: "capabilities", rule: "PUBLISH") {
            _ = try tokenRequest(#"{"capabilities": ["ADMIN"]}"#)
        },
        // Capabilities are upper case.
        Malformed(#"capabilities ["publish"]"#, field: "capabilities") { _ = try tokenRequest(#"{"capabilities": ["publish"]}"#) },
        // At most two capabilities.
        Malformed("capabilities with 3 items", field: "capabilities", rule: "got 3") {
            _ = try tokenRequest(#"{"capabilities": ["PUBLISH", "SUBSCRIBE", "PUBLISH"]}"#)
        },
        // capabilities is a list, not a string.
        Malformed(#"capabilities "PUBLISH" (not a list)"#, field: "capabilities", rule: "must be a list") {
            _ = try tokenRequest(#"{"capabilities": "PUBLISH"}"#)
        },
        // maxResults is 1–100.
        Malformed("maxResults 0", field: "maxResults", rule: "between 1 and 100") { _ = try maxResults(#"{"maxResults": 0}"#) },
        Malformed("maxResults 101", field: "maxResults", rule: "between 1 and 100") { _ = try maxResults(#"{"maxResults": 101}"#) },
        // A fractional number is not an integer.
        Malformed("integer given as 1.5", field: "duration", rule: "must be an integer, got a number") {
            _ = try tokenRequest(#"{"duration": 1.5}"#)
        },
        // A numeric string is not an integer.
        Malformed(#"integer given as "60""#, field: "duration", rule: "must be an integer, got a string") {
            _ = try tokenRequest(#"{"duration": "60"}"#)
        },
        // Far too large to be an Int.
        Malformed("integer given as 1e20", field: "maxResults", rule: "must be an integer") { _ = try maxResults(#"{"maxResults": 1e20}"#) },
        // A boolean is not an integer.
        Malformed("integer given as true", field: "maxResults", rule: "got a boolean") { _ = try maxResults(#"{"maxResults": true}"#) },
        // A string is not a boolean.
        Malformed(#"boolean given as "true""#, field: "filterByPublished", rule: "must be a boolean, got a string") {
            _ = try filterByPublished(#"{"filterByPublished": "true"}"#)
        },
        // A number is not a boolean either.
        Malformed("boolean given as 1", field: "filterByPublished", rule: "must be a boolean, got a number") {
            _ = try filterByPublished(#"{"filterByPublished": 1}"#)
        },
        // userId is at most 128 characters.
        Malformed("userId of 129 characters", field: "userId", rule: "got 129") { _ = try tokenRequest(#"{"userId": "\#(longName)"}"#) },
        // A token this server did not hand out.
        Malformed("nextToken not from this server", field: "nextToken", rule: "not a token returned by this server") {
            _ = try nextToken(#"{"nextToken": "abc"}"#)
        },
        // A negative position.
        Malformed("nextToken p-1", field: "nextToken") { _ = try nextToken(#"{"nextToken": "p-1"}"#) },
        // Errors inside a CreateStage configuration carry its path.
        Malformed("CreateStage configuration with duration 0", field: "participantTokenConfigurations[0].duration") {
            _ = try stageTokenConfiguration(#"{"duration": 0}"#)
        },
        Malformed("CreateStage configuration with an unknown field", field: "participantTokenConfigurations[0].stageArn",
                  rule: "unknown field") {
            _ = try stageTokenConfiguration(#"{"stageArn": "arn"}"#)
        },
        Malformed("CreateStage configuration with too large attributes", field: "participantTokenConfigurations[0].attributes") {
            _ = try stageTokenConfiguration(#"{"attributes": {"k": "\#(bigValue)"}}"#)
        },
    ]

    @Test(arguments: malformed)
    func malformedBodyIsValidationError(_ input: Malformed) {
        let error = #expect(throws: APIError.self, "\(input.name) must be refused") { try input.read() }
        guard let error else { return }
        #expect(error.kind == .validation)
        #expect(error.message.contains(input.field), "message '\(error.message)' does not name '\(input.field)'")
        #expect(input.rule.isEmpty || error.message.contains(input.rule), "message '\(error.message)' does not state '\(input.rule)'")
    }

    @Test("checkAttributes: 1024 bytes pass, 1025 bytes are refused naming the field")
    func attributesLimitBoundary() {
        let exactly = ["key": String(repeating: "v", count: 1024 - 3)]
        #expect(throws: Never.self) { try FieldRules.checkAttributes(exactly, field: "attributes") }
        let over = ["key": String(repeating: "v", count: 1024 - 2)]
        let error = #expect(throws: APIError.self) { try FieldRules.checkAttributes(over, field: "attributes") }
        #expect(error?.kind == .validation)
        #expect(error?.message.contains("attributes: keys and values total 1025 bytes") == true)
        // Bytes, not characters: 512 two-byte characters are 1024 bytes, plus a 1-byte key is over.
        let multibyte = ["k": String(repeating: "é", count: 512)]
        #expect(throws: APIError.self) { try FieldRules.checkAttributes(multibyte, field: "attributes") }
    }

    // MARK: Accepted bodies

    @Test("an empty or whitespace-only body is an empty object", arguments: ["", " ", "\n\t \r\n"])
    func emptyBodyIsEmptyObject(_ body: String) throws {
        let fields = try RequestFields.parse(Self.bytes(body), allowed: [])
        #expect(fields.members.isEmpty)
        #expect(fields.path.isEmpty)
    }

    @Test("an empty body gives TokenRequest's defaults: 720 minutes, no user, both capabilities")
    func tokenRequestDefaults() throws {
        let request = try Self.tokenRequest("")
        #expect(request.duration == 720)
        #expect(request.userId == "")
        #expect(request.attributes.isEmpty)
        #expect(request.capabilities == ["PUBLISH", "SUBSCRIBE"])
        // `{}` and explicit nulls read the same.
        let nulls = try Self.tokenRequest(#"{"duration": null, "userId": null, "attributes": null, "capabilities": null}"#)
        #expect(nulls.duration == 720)
        #expect(nulls.capabilities == ["PUBLISH", "SUBSCRIBE"])
    }

    @Test("a full token request is read as given")
    func tokenRequestGiven() throws {
        let request = try Self.tokenRequest(
            #"{"stageArn": "arn:aws:ivs:us-west-2:123456789012:stage/abc", "duration": 60, "userId": "alice", "attributes": {"role": "host"}, "capabilities": ["SUBSCRIBE"]}"#)
        #expect(request.duration == 60)
        #expect(request.userId == "alice")
        #expect(request.attributes == ["role": "host"])
        #expect(request.capabilities == ["SUBSCRIBE"])
        // A repeated capability is kept once.
        #expect(try Self.tokenRequest(#"{"capabilities": ["PUBLISH", "PUBLISH"]}"#).capabilities == ["PUBLISH"])
    }

    /// Values on the edges of their ranges, which must be accepted.
    @Test(arguments: [
        #"{"duration": 1}"#,                                          // shortest token
        #"{"duration": 20160}"#,                                      // 14 days
        #"{"duration": 60.0}"#,                                       // an integral number written with a fraction
        #"{"userId": ""}"#,                                           // empty user id
        #"{"capabilities": ["SUBSCRIBE", "PUBLISH"]}"#,               // both, in either order
    ])
    func tokenRequestBoundariesAccepted(_ json: String) {
        #expect(throws: Never.self) { try Self.tokenRequest(json) }
    }

    @Test("integers are read as numbers, not booleans", arguments: [1, 2, 50, 100])
    func maxResultsAccepted(_ value: Int) throws {
        #expect(try Self.maxResults(#"{"maxResults": \#(value)}"#) == value)
    }

    @Test("maxResults defaults to 50")
    func maxResultsDefault() throws {
        #expect(try Self.maxResults("{}") == 50)
    }

    @Test("duration 1 is read as the integer 1")
    func durationOne() throws {
        #expect(try Self.tokenRequest(#"{"duration": 1}"#).duration == 1)
    }

    @Test("booleans are read", arguments: [("true", true), ("false", false)])
    func booleansAccepted(_ json: String, _ value: Bool) throws {
        #expect(try Self.filterByPublished(#"{"filterByPublished": \#(json)}"#) == value)
    }

    @Test("name of 128 allowed characters is accepted")
    func longestNameAccepted() throws {
        let name = String(repeating: "a-_9", count: 32)
        #expect(try Self.stageName(#"{"name": "\#(name)"}"#) == name)
    }

    @Test("page tokens round-trip; absent or empty means the start")
    func pageTokens() throws {
        #expect(try PageToken.decode(PageToken.encode(42)) == 42)
        #expect(try PageToken.decode(PageToken.encode(0)) == 0)
        #expect(try PageToken.decode(nil) == nil)
        #expect(try PageToken.decode("") == nil)
        #expect(try Self.nextToken("{}") == nil)
    }
}
