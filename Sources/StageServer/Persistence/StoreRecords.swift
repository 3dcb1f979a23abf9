import Foundation

/// Rows of the store as the rest of the server uses them.
struct StageRecord: Sendable, Hashable {
    var seq: Int64
    var id: String
    var name: String
    var tags: [String: String]
}

struct SessionRecord: Sendable, Hashable {
    var seq: Int64
    var sessionId: String
    var stageId: String
    var startTime: Date
    var endTime: Date?
}

struct ParticipantRecord: Sendable, Hashable {
    var seq: Int64
    var sessionId: String
    var participantId: String
    var userId: String
    var attributes: [String: String]
    var connected: Bool
    var firstJoinTime: Date
    var published: Bool
    var sdkVersion: String?
    var osName: String?
    var osVersion: String?
}

struct ParticipantEventRecord: Sendable, Hashable {
    var seq: Int64
    var participantId: String
    var name: String
    var time: Date
    var remoteParticipantId: String?
    var errorCode: String?
}

struct PublicKeyRecord: Sendable, Hashable {
    var seq: Int64
    var id: String
    var name: String
    var material: String
    var fingerprint: String
    var tags: [String: String]
}

struct TokenRecord: Sendable, Hashable {
    var participantId: String
    var stageId: String
    var userId: String
    var attributes: [String: String]
    var capabilities: [String]
    var duration: Int
    var expiresAt: Date
    var issuedAt: Date
}

/// JSON columns: small maps and lists stored as text.
enum JSONColumn {
    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? "{}"
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String?, default value: T) -> T {
        guard let text, let decoded = try? JSONDecoder().decode(T.self, from: Data(text.utf8)) else { return value }
        return decoded
    }
}
