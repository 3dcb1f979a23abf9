import Foundation
import Testing
@testable import StageProtocol
import StageWire

/// The signaling fast path against its definition, the `Codable` conformances run by Foundation:
/// the same bytes out, the same values in, and every text it declines left to Foundation.
@Suite struct FastPathTests {
    let codec = SignalCodec()

    // MARK: Encoding: byte for byte what JSONEncoder writes

    @Test func randomServerMessagesEncodeAsFoundationDoes() throws {
        var random = SeededRandom(seed: 0x5EED)
        for _ in 0..<2000 {
            let message = random.serverMessage()
            let fast = message.fastJSON
            #expect(fast == (try codec.foundationEncode(message)))
            #expect(try ServerMessage(fastJSON: fast) == message)
        }
    }

    @Test func randomClientMessagesEncodeAsFoundationDoes() throws {
        var random = SeededRandom(seed: 0xC11E)
        for _ in 0..<2000 {
            let message = random.clientMessage()
            let fast = message.fastJSON
            #expect(fast == (try codec.foundationEncode(message)))
            #expect(try ClientMessage(fastJSON: fast) == message)
        }
    }

    @Test func everyFixtureTakesTheFastPathBothWays() throws {
        for side in ["client", "server"] {
            for name in GoldenFixtureTests.fixtureNames(side) {
                let text = String(decoding: try GoldenFixtureTests.load(side, name), as: UTF8.self)
                if side == "client" {
                    let fast = try ClientMessage(fastJSON: text)
                    #expect(fast == (try codec.foundationDecode(text) as ClientMessage), "\(name)")
                    #expect(fast.fastJSON == text, "\(name)")
                } else {
                    let fast = try ServerMessage(fastJSON: text)
                    #expect(fast == (try codec.foundationDecode(text) as ServerMessage), "\(name)")
                    #expect(fast.fastJSON == text, "\(name)")
                }
            }
        }
    }

    // MARK: Decoding: what the fast path reads, Foundation reads the same

    static let accepted: [(String, String)] = [
        ("whitespace everywhere", " {\n\t\"v\" : 1 ,\r\n \"type\" : \"pong\" , \"nonce\" : -42 } \n"),
        ("unknown members are ignored", #"{"v":1,"type":"pong","nonce":7,"extra":{"a":[1,true,null,"x"]}}"#),
        ("escapes", #"{"v":1,"type":"disconnect","reason":"serverShutdown","message":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00\u0000"}"#),
        ("null optional", #"{"v":1,"type":"error","code":4000,"message":"m","requestId":null}"#),
        ("largest and smallest Int", #"{"v":1,"type":"pong","nonce":-9223372036854775808}"#),
        ("attributes with unicode keys", #"{"v":1,"type":"participantJoined","participant":{"attributes":{"é":"1","\u00e8":"2","ﬁ":""},"capabilities":{"allow_publish":true,"allow_subscribe":false},"participantId":"p","userId":"u"},"streams":[]}"#),
    ]

    @Test(arguments: accepted.map(\.0))
    func theFastPathReadsWhatFoundationReads(_ name: String) throws {
        let text = try #require(Self.accepted.first { $0.0 == name }?.1)
        let fast = try ServerMessage(fastJSON: text)
        #expect(fast == (try codec.foundationDecode(text) as ServerMessage))
    }

    /// Texts the fast path declines, and whether Foundation, which `SignalCodec` then asks, reads them.
    static let declined: [(name: String, text: String, foundationReads: Bool)] = [
        ("fraction for an integer", #"{"v":1,"type":"pong","nonce":1.0}"#, true),
        ("exponent for an integer", #"{"v":1,"type":"pong","nonce":1e2}"#, true),
        ("repeated key", #"{"v":1,"type":"pong","nonce":1,"nonce":2}"#, true),
        ("integer beyond Int", #"{"v":1,"type":"pong","nonce":9223372036854775808}"#, false),
        ("leading zero", #"{"v":1,"type":"pong","nonce":01}"#, false),
        ("trailing text", #"{"v":1,"type":"pong","nonce":1}x"#, false),
        ("trailing comma (Foundation allows it)", #"{"v":1,"type":"pong","nonce":1,}"#, true),
        ("unterminated string", #"{"v":1,"type":"pong","nonce":1,"a":"x"#, false),
        ("raw control character in a string", "{\"v\":1,\"type\":\"disconnect\",\"reason\":\"left\",\"message\":\"a\u{01}\"}", false),
        ("unknown escape", #"{"v":1,"type":"disconnect","reason":"serverShutdown","message":"\q"}"#, false),
        ("lone surrogate", #"{"v":1,"type":"disconnect","reason":"serverShutdown","message":"\ud800"}"#, false),
        ("short unicode escape", #"{"v":1,"type":"disconnect","reason":"serverShutdown","message":"\u12"}"#, false),
        ("null for a required member", #"{"v":1,"type":"pong","nonce":null}"#, false),
        ("missing member", #"{"v":1,"type":"pong"}"#, false),
        ("string for an integer", #"{"v":1,"type":"pong","nonce":"1"}"#, false),
        ("integer for a boolean", #"{"v":1,"type":"muteChanged","participantId":"p","streams":[{"kind":"audio","muted":1,"streamId":"m"}]}"#, false),
        ("unknown enum value", #"{"v":1,"type":"participantLeft","participantId":"p","reason":"vanished"}"#, false),
        ("unknown error code", #"{"v":1,"type":"error","code":4999,"message":"m"}"#, false),
        ("unknown type", #"{"v":1,"type":"teleport"}"#, false),
        ("other version", #"{"v":2,"type":"pong","nonce":1}"#, false),
        ("array at the top", #"[{"v":1,"type":"pong","nonce":1}]"#, false),
        ("empty text", "", false),
        ("nesting deeper than the fast path goes", #"{"v":1,"type":"pong","nonce":1,"x":"# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}", true),
        ("non-object stream", #"{"v":1,"type":"streamsChanged","participantId":"p","streams":["camera"]}"#, false),
    ]

    @Test(arguments: declined.map(\.name))
    func declinedTextGoesToFoundation(_ name: String) throws {
        let entry = try #require(Self.declined.first { $0.name == name })
        #expect(throws: JSONFastPathDeclined.self) { try ServerMessage(fastJSON: entry.text) }
        let reference = try? codec.foundationDecode(entry.text) as ServerMessage
        #expect((reference != nil) == entry.foundationReads, "Foundation \(reference == nil ? "refuses" : "reads") \(name)")
        #expect((try? codec.decodeServer(entry.text)) == reference)
    }

    @Test func foundationStillNamesTheFieldOfAMalformedClientMessage() {
        #expect {
            try codec.decodeClient(#"{"v":1,"type":"subscribe","requestId":"r1","participantId":"p"}"#)
        } throws: { error in
            guard case .keyNotFound(let key, _) = error as? DecodingError else { return false }
            return key.stringValue == "subscribeType"
        }
    }
}

/// SplitMix64: reproducible messages for the comparisons above.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Strings that exercise escaping and key order: quotes, backslashes, every control
    /// character, slashes, non-ASCII, emoji and a decomposed accent.
    mutating func string() -> String {
        let pieces = ["a", "Z", "_", "0", "10", "9", " ", "\"", "\\", "/", "\u{7f}", "é", "e\u{301}", "😀", "ﬁ", "\u{2028}", "Å", "Å", "camera", "mic"]
        var text = ""
        for _ in 0..<Int.random(in: 0...6, using: &self) {
            if Bool.random(using: &self), Int.random(in: 0..<4, using: &self) == 0 {
                text.unicodeScalars.append(Unicode.Scalar(UInt8.random(in: 0..<0x20, using: &self)))
            } else {
                text += pieces.randomElement(using: &self)!
            }
        }
        return text
    }

    mutating func optionalString() -> String? { Bool.random(using: &self) ? string() : nil }

    mutating func streams() -> [StreamDescriptor] {
        (0..<Int.random(in: 0...3, using: &self)).map { _ in
            StreamDescriptor(streamId: string(), kind: MediaKind.allCases.randomElement(using: &self)!, muted: Bool.random(using: &self))
        }
    }

    mutating func participant() -> ParticipantDescriptor {
        var attributes: [String: String] = [:]
        for _ in 0..<Int.random(in: 0...4, using: &self) { attributes[string()] = string() }
        return ParticipantDescriptor(participantId: string(), userId: string(), attributes: attributes,
                                     capabilities: Capabilities(allowPublish: Bool.random(using: &self), allowSubscribe: Bool.random(using: &self)))
    }

    mutating func publisher() -> PublisherDescriptor { PublisherDescriptor(participant: participant(), streams: streams()) }

    mutating func serverMessage() -> ServerMessage {
        switch Int.random(in: 0..<13, using: &self) {
        case 0: .joined(.init(sessionId: string(), participant: participant(), publishers: (0..<Int.random(in: 0...2, using: &self)).map { _ in publisher() },
                              pingIntervalSeconds: Int.random(in: Int.min...Int.max, using: &self)))
        case 1: .participantJoined(publisher())
        case 2: .participantLeft(.init(participantId: string(), reason: [.unpublished, .left, .disconnected].randomElement(using: &self)!))
        case 3: .streamsChanged(.init(participantId: string(), streams: streams()))
        case 4: .muteChanged(.init(participantId: string(), streams: streams()))
        case 5: .publishState(.init(requestId: optionalString(), state: Bool.random(using: &self) ? .published : .notPublished, streams: streams()))
        case 6: .subscribeState(.init(requestId: optionalString(), participantId: string(), subscribeType: SubscribeType.allCases.randomElement(using: &self)!,
                                      state: Bool.random(using: &self) ? .subscribed : .notSubscribed, streams: streams()))
        case 7: .error(.init(code: [.malformedMessage, .publisherNotFound, .internalError].randomElement(using: &self)!, message: string(), requestId: optionalString()))
        case 8: .disconnect(.init(reason: [.disconnectedByOperator, .stageDeleted, .serverShutdown].randomElement(using: &self)!, message: string()))
        case 9: .pong(Ping(nonce: Int.random(in: Int.min...Int.max, using: &self)))
        case 10: .sdpAnswer(.init(requestId: string(), sdp: string()))
        case 11: .publishLayers(.init(streamId: string(), rids: (0..<Int.random(in: 0...3, using: &self)).map { _ in string() }))
        default: .downlinkEstimate(.init(participantId: string(), bitsPerSecond: Int.random(in: 0...20_000_000, using: &self)))
        }
    }

    mutating func clientMessage() -> ClientMessage {
        switch Int.random(in: 0..<9, using: &self) {
        case 0: .join(.init(token: string(), client: Bool.random(using: &self) ? nil
                        : ClientDescription(sdkVersion: optionalString(), osName: optionalString(), osVersion: optionalString())))
        case 1: .publish(.init(requestId: string(), streams: streams()))
        case 2: .unpublish(.init(requestId: string()))
        case 3: .mute(.init(streamId: string(), muted: Bool.random(using: &self)))
        case 4: .subscribe(.init(requestId: string(), participantId: string(), subscribeType: SubscribeType.allCases.randomElement(using: &self)!))
        case 5: .ping(Ping(nonce: Int.random(in: Int.min...Int.max, using: &self)))
        case 6: .leave
        case 7: .sdpOffer(.init(requestId: string(), purpose: Bool.random(using: &self) ? .publish : .subscribe, participantId: optionalString(), sdp: string()))
        default: .preferLayer(.init(participantId: string(), rid: optionalString()))
        }
    }
}
