public import Foundation

/// Response shapes of the Amazon IVS Real-Time API (2020-07-14) that this project serves and
/// its CLI reads. Field names and optionality follow botocore's `ivs-realtime` model.
public enum IVSAPI {
    public struct StageEndpoints: Codable, Sendable, Hashable {
        public var events: String?
        public var whip: String?
        public init(events: String?, whip: String?) {
            self.events = events
            self.whip = whip
        }
    }

    public struct Stage: Codable, Sendable, Hashable {
        public var arn: String
        public var name: String?
        public var activeSessionId: String?
        public var tags: [String: String]?
        public var endpoints: StageEndpoints?
        public init(arn: String, name: String?, activeSessionId: String?, tags: [String: String]?, endpoints: StageEndpoints?) {
            self.arn = arn
            self.name = name
            self.activeSessionId = activeSessionId
            self.tags = tags
            self.endpoints = endpoints
        }
    }

    public struct StageSummary: Codable, Sendable, Hashable {
        public var arn: String
        public var name: String?
        public var activeSessionId: String?
        public var tags: [String: String]?
        public init(arn: String, name: String?, activeSessionId: String?, tags: [String: String]?) {
            self.arn = arn
            self.name = name
            self.activeSessionId = activeSessionId
            self.tags = tags
        }
    }

    public struct ParticipantToken: Codable, Sendable, Hashable {
        public var participantId: String?
        public var token: String?
        public var userId: String?
        public var attributes: [String: String]?
        public var duration: Int?
        public var capabilities: [String]?
        public var expirationTime: Date?
        public init(participantId: String?, token: String?, userId: String?, attributes: [String: String]?,
                    duration: Int?, capabilities: [String]?, expirationTime: Date?) {
            self.participantId = participantId
            self.token = token
            self.userId = userId
            self.attributes = attributes
            self.duration = duration
            self.capabilities = capabilities
            self.expirationTime = expirationTime
        }
    }

    public struct Participant: Codable, Sendable, Hashable {
        public var participantId: String?
        public var userId: String?
        public var state: String?
        public var firstJoinTime: Date?
        public var attributes: [String: String]?
        public var published: Bool?
        public var osName: String?
        public var osVersion: String?
        public var sdkVersion: String?
        public var `protocol`: String?
        public init(participantId: String?, userId: String?, state: String?, firstJoinTime: Date?, attributes: [String: String]?,
                    published: Bool?, osName: String?, osVersion: String?, sdkVersion: String?, protocol: String?) {
            self.participantId = participantId
            self.userId = userId
            self.state = state
            self.firstJoinTime = firstJoinTime
            self.attributes = attributes
            self.published = published
            self.osName = osName
            self.osVersion = osVersion
            self.sdkVersion = sdkVersion
            self.protocol = `protocol`
        }
    }

    public struct ParticipantSummary: Codable, Sendable, Hashable {
        public var participantId: String?
        public var userId: String?
        public var state: String?
        public var firstJoinTime: Date?
        public var published: Bool?
        public init(participantId: String?, userId: String?, state: String?, firstJoinTime: Date?, published: Bool?) {
            self.participantId = participantId
            self.userId = userId
            self.state = state
            self.firstJoinTime = firstJoinTime
            self.published = published
        }
    }

    public struct Event: Codable, Sendable, Hashable {
        public var name: String?
        public var participantId: String?
        public var eventTime: Date?
        public var remoteParticipantId: String?
        public var errorCode: String?
        public init(name: String?, participantId: String?, eventTime: Date?, remoteParticipantId: String?, errorCode: String?) {
            self.name = name
            self.participantId = participantId
            self.eventTime = eventTime
            self.remoteParticipantId = remoteParticipantId
            self.errorCode = errorCode
        }
    }

    public struct StageSession: Codable, Sendable, Hashable {
        public var sessionId: String?
        public var startTime: Date?
        public var endTime: Date?
        public init(sessionId: String?, startTime: Date?, endTime: Date?) {
            self.sessionId = sessionId
            self.startTime = startTime
            self.endTime = endTime
        }
    }

    public struct PublicKey: Codable, Sendable, Hashable {
        public var arn: String?
        public var name: String?
        public var publicKeyMaterial: String?
        public var fingerprint: String?
        public var tags: [String: String]?
        public init(arn: String?, name: String?, publicKeyMaterial: String?, fingerprint: String?, tags: [String: String]?) {
            self.arn = arn
            self.name = name
            self.publicKeyMaterial = publicKeyMaterial
            self.fingerprint = fingerprint
            self.tags = tags
        }
    }

    // Operation outputs.
    public struct CreateStageResponse: Codable, Sendable {
        public var stage: Stage
        public var participantTokens: [ParticipantToken]
        public init(stage: Stage, participantTokens: [ParticipantToken]) { self.stage = stage; self.participantTokens = participantTokens }
    }
    public struct StageResponse: Codable, Sendable {
        public var stage: Stage
        public init(stage: Stage) { self.stage = stage }
    }
    public struct ListStagesResponse: Codable, Sendable {
        public var stages: [StageSummary]
        public var nextToken: String?
        public init(stages: [StageSummary], nextToken: String? = nil) { self.stages = stages; self.nextToken = nextToken }
    }
    public struct CreateParticipantTokenResponse: Codable, Sendable {
        public var participantToken: ParticipantToken
        public init(participantToken: ParticipantToken) { self.participantToken = participantToken }
    }
    public struct GetParticipantResponse: Codable, Sendable {
        public var participant: Participant
        public init(participant: Participant) { self.participant = participant }
    }
    public struct ListParticipantsResponse: Codable, Sendable {
        public var participants: [ParticipantSummary]
        public var nextToken: String?
        public init(participants: [ParticipantSummary], nextToken: String? = nil) { self.participants = participants; self.nextToken = nextToken }
    }
    public struct ListParticipantEventsResponse: Codable, Sendable {
        public var events: [Event]
        public var nextToken: String?
        public init(events: [Event], nextToken: String? = nil) { self.events = events; self.nextToken = nextToken }
    }
    public struct GetStageSessionResponse: Codable, Sendable {
        public var stageSession: StageSession
        public init(stageSession: StageSession) { self.stageSession = stageSession }
    }
    public struct ListStageSessionsResponse: Codable, Sendable {
        public var stageSessions: [StageSession]
        public var nextToken: String?
        public init(stageSessions: [StageSession], nextToken: String? = nil) { self.stageSessions = stageSessions; self.nextToken = nextToken }
    }
    public struct PublicKeyResponse: Codable, Sendable {
        public var publicKey: PublicKey
        public init(publicKey: PublicKey) { self.publicKey = publicKey }
    }
    public struct ListPublicKeysResponse: Codable, Sendable {
        public var publicKeys: [PublicKey]
        public var nextToken: String?
        public init(publicKeys: [PublicKey], nextToken: String? = nil) { self.publicKeys = publicKeys; self.nextToken = nextToken }
    }
    public struct Empty: Codable, Sendable { public init() {} }

    /// The error body; the type travels in the `x-amzn-ErrorType` header.
    public struct ErrorBody: Codable, Sendable {
        public var message: String
        public var exceptionMessage: String
        public init(message: String) {
            self.message = message
            exceptionMessage = message
        }
    }

    /// Encoder matching IVS's wire format (ISO 8601 timestamps).
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
