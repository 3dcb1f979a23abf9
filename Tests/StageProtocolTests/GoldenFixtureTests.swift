import Foundation
import Testing
@testable import StageProtocol

/// Golden fixtures under `Fixtures/{client,server}/<type>[-variant].json`: each file is exactly what
/// `SignalCodec` writes for that message, so decode → encode must reproduce it byte for byte.
@Suite struct GoldenFixtureTests {
    static let clientTypes = ["join", "publish", "unpublish", "mute", "subscribe", "ping", "leave", "sdpOffer", "preferLayer"]
    static let serverTypes = [
        "joined", "participantJoined", "participantLeft", "streamsChanged", "muteChanged",
        "publishState", "subscribeState", "error", "disconnect", "pong", "sdpAnswer", "publishLayers", "downlinkEstimate",
    ]

    static func fixturesDirectory() -> URL? {
        Bundle.module.url(forResource: "Fixtures", withExtension: nil)
    }

    /// The fixture file names (`join.json`, `error-with-request.json`, …) of one side, sorted.
    static func fixtureNames(_ side: String) -> [String] {
        guard let dir = fixturesDirectory()?.appendingPathComponent(side, isDirectory: true),
              let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path)
        else { return [] }
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }

    /// The message type a fixture holds: its name before any `-` and before `.json`.
    static func expectedType(_ fileName: String) -> String {
        let stem = fileName.hasSuffix(".json") ? String(fileName.dropLast(5)) : fileName
        return String(stem.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)[0])
    }

    static func load(_ side: String, _ name: String) throws -> Data {
        let dir = try #require(fixturesDirectory())
        return try Data(contentsOf: dir.appendingPathComponent(side).appendingPathComponent(name))
    }

    @Test(arguments: GoldenFixtureTests.fixtureNames("client"))
    func clientFixtureRoundTrips(_ name: String) throws {
        let data = try Self.load("client", name)
        let codec = SignalCodec()
        let message = try codec.decodeClient(String(decoding: data, as: UTF8.self))
        #expect(message.type == Self.expectedType(name))
        let encoded = codec.encode(message)
        #expect(Data(encoded.utf8) == data, "re-encoded \(name):\n\(encoded)")
    }

    @Test(arguments: GoldenFixtureTests.fixtureNames("server"))
    func serverFixtureRoundTrips(_ name: String) throws {
        let data = try Self.load("server", name)
        let codec = SignalCodec()
        let message = try codec.decodeServer(String(decoding: data, as: UTF8.self))
        #expect(message.type == Self.expectedType(name))
        let encoded = codec.encode(message)
        #expect(Data(encoded.utf8) == data, "re-encoded \(name):\n\(encoded)")
    }

    @Test func everyMessageTypeHasAFixture() {
        let client = Set(Self.fixtureNames("client").map(Self.expectedType))
        let server = Set(Self.fixtureNames("server").map(Self.expectedType))
        for type in Self.clientTypes {
            #expect(client.contains(type), "no client fixture for \(type)")
        }
        for type in Self.serverTypes {
            #expect(server.contains(type), "no server fixture for \(type)")
        }
        // No fixture names a type the codec does not know.
        #expect(client.subtracting(Self.clientTypes).isEmpty)
        #expect(server.subtracting(Self.serverTypes).isEmpty)
    }

    @Test func joinFixtureCarriesAParticipantToken() throws {
        let data = try Self.load("client", "join.json")
        guard case .join(let join) = try SignalCodec().decodeClient(String(decoding: data, as: UTF8.self)) else {
            Issue.record("join.json is not a join")
            return
        }
        let claims = try ParticipantTokenClaims.decodeUnverified(join.token)
        #expect(claims.version == "1.0")
        #expect(claims.jti == "pA1b2C3d4E5f")
        #expect(claims.capabilities == Capabilities(allowPublish: true, allowSubscribe: true))
    }
}

/// Frames `decodeClient` must reject.
@Suite struct MalformedFrameTests {
    enum Expected: Sendable {
        /// Any error (typically `DecodingError`).
        case anyError
        case signal(SignalDecodingError)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var frame: String
        var expected: Expected
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "not JSON", frame: "hello", expected: .anyError),
        Case(name: "truncated JSON", frame: #"{"v":1,"type":"ping","nonce":1"#, expected: .anyError),
        Case(name: "JSON array", frame: #"[{"v":1,"type":"leave"}]"#, expected: .anyError),
        Case(name: "JSON string", frame: #""leave""#, expected: .anyError),
        Case(name: "missing v", frame: #"{"type":"leave"}"#, expected: .anyError),
        Case(name: "v is a string", frame: #"{"v":"1","type":"leave"}"#, expected: .anyError),
        Case(name: "v 2", frame: #"{"v":2,"type":"leave"}"#, expected: .signal(.unsupportedVersion(2))),
        Case(name: "missing type", frame: #"{"v":1}"#, expected: .anyError),
        Case(name: "unknown type", frame: #"{"v":1,"type":"teleport"}"#, expected: .signal(.unknownType("teleport"))),
        Case(name: "server type sent by a client", frame: #"{"v":1,"type":"pong","nonce":1}"#,
             expected: .signal(.unknownType("pong"))),
        Case(name: "missing required field", frame: #"{"v":1,"type":"publish","streams":[]}"#, expected: .anyError),
        Case(name: "join without token", frame: #"{"v":1,"type":"join"}"#, expected: .anyError),
        Case(name: "wrong field type", frame: #"{"v":1,"type":"ping","nonce":"17"}"#, expected: .anyError),
        Case(name: "muted is a string", frame: #"{"v":1,"type":"mute","streamId":"mic","muted":"yes"}"#,
             expected: .anyError),
        Case(name: "invalid subscribeType", frame:
                #"{"v":1,"type":"subscribe","requestId":"r1","participantId":"qZ9y8X7w6V5u","subscribeType":"video"}"#,
             expected: .anyError),
        Case(name: "invalid stream kind", frame:
                #"{"v":1,"type":"publish","requestId":"r1","streams":[{"streamId":"s","kind":"screen","muted":false}]}"#,
             expected: .anyError),
        Case(name: "invalid sdpOffer purpose", frame: #"{"v":1,"type":"sdpOffer","requestId":"r1","purpose":"both","sdp":"v=0"}"#,
             expected: .anyError),
    ]

    @Test(arguments: MalformedFrameTests.cases)
    func decodeClientRejects(_ c: Case) {
        let codec = SignalCodec()
        switch c.expected {
        case .anyError:
            #expect(throws: (any Error).self) { try codec.decodeClient(c.frame) }
        case .signal(let error):
            #expect(throws: error) { try codec.decodeClient(c.frame) }
        }
    }
}
