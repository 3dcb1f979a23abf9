import Foundation
import StageProtocol

extension ControlPlane {
    func participantId(_ fields: RequestFields) throws(APIError) -> String {
        guard let id = try fields.string("participantId", required: true, length: 1...64,
                                         allowed: { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") },
                                         rule: "allowed: letters, digits and '-'") else {
            throw .validation("participantId: required")
        }
        return id
    }

    func getParticipant(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["stageArn", "sessionId", "participantId"])
        let stage = try await existingStage(fields, "stageArn")
        let sessionId = try sessionId(fields)
        let id = try participantId(fields)
        guard try await store.session(stageId: stage.id, sessionId: sessionId) != nil,
              let p = try await store.participant(sessionId: sessionId, participantId: id) else {
            throw APIError.notFound("participantId: no participant \(id) in session \(sessionId)")
        }
        return IVSAPI.GetParticipantResponse(participant: .init(
            participantId: p.participantId, userId: p.userId, state: p.connected ? "CONNECTED" : "DISCONNECTED",
            firstJoinTime: p.firstJoinTime, attributes: p.attributes, published: p.published, osName: p.osName,
            osVersion: p.osVersion, sdkVersion: p.sdkVersion, protocol: "UNKNOWN"))
    }

    func listParticipants(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: [
            "stageArn", "sessionId", "filterByUserId", "filterByPublished", "filterByState", "nextToken", "maxResults",
            "filterByRecordingState",
        ])
        let (_, stageId) = try stageARN(fields, "stageArn")
        let sessionId = try sessionId(fields)
        let limit = try maxResults(fields)
        let after = try PageToken.decode(fields.string("nextToken", length: 0...1024)) ?? 0
        var filter = Store.ParticipantFilter(userId: try fields.string("filterByUserId", length: 0...128),
                                             published: try fields.bool("filterByPublished"))
        if let state = try fields.string("filterByState") {
            guard state == "CONNECTED" || state == "DISCONNECTED" else {
                throw APIError.validation("filterByState: must be CONNECTED or DISCONNECTED")
            }
            filter.connected = state == "CONNECTED"
        }
        let setFilters = [filter.userId != nil, filter.published != nil, filter.connected != nil].filter { $0 }.count
        guard setFilters <= 1 else {
            throw APIError.validation("filterByUserId, filterByPublished, filterByState: at most one filter may be set")
        }
        if let recording = try fields.string("filterByRecordingState") {
            throw APIError.validation("filterByRecordingState: participant recording is not supported (got \(recording))")
        }
        guard try await store.session(stageId: stageId, sessionId: sessionId) != nil else {
            return IVSAPI.ListParticipantsResponse(participants: [], nextToken: nil)
        }
        let page = try await store.participants(sessionId: sessionId, filter: filter, afterSeq: after, limit: limit + 1)
        return IVSAPI.ListParticipantsResponse(
            participants: page.prefix(limit).map {
                .init(participantId: $0.participantId, userId: $0.userId, state: $0.connected ? "CONNECTED" : "DISCONNECTED",
                      firstJoinTime: $0.firstJoinTime, published: $0.published)
            },
            nextToken: page.count > limit ? PageToken.encode(page[limit - 1].seq) : nil)
    }

    func listParticipantEvents(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["stageArn", "sessionId", "participantId", "nextToken", "maxResults"])
        let (_, stageId) = try stageARN(fields, "stageArn")
        let sessionId = try sessionId(fields)
        let id = try participantId(fields)
        let limit = try maxResults(fields)
        let after = try PageToken.decode(fields.string("nextToken", length: 0...1024)) ?? 0
        guard try await store.session(stageId: stageId, sessionId: sessionId) != nil else {
            return IVSAPI.ListParticipantEventsResponse(events: [], nextToken: nil)
        }
        let page = try await store.events(sessionId: sessionId, participantId: id, afterSeq: after, limit: limit + 1)
        return IVSAPI.ListParticipantEventsResponse(
            events: page.prefix(limit).map {
                .init(name: $0.name, participantId: $0.participantId, eventTime: $0.time,
                      remoteParticipantId: $0.remoteParticipantId, errorCode: $0.errorCode)
            },
            nextToken: page.count > limit ? PageToken.encode(page[limit - 1].seq) : nil)
    }

    func getStageSession(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["stageArn", "sessionId"])
        let (arn, stageId) = try stageARN(fields, "stageArn")
        let sessionId = try sessionId(fields)
        guard let session = try await store.session(stageId: stageId, sessionId: sessionId) else {
            throw APIError.notFound("sessionId: no session \(sessionId) for stage \(arn)")
        }
        return IVSAPI.GetStageSessionResponse(stageSession: .init(sessionId: session.sessionId, startTime: session.startTime,
                                                                  endTime: session.endTime))
    }

    func listStageSessions(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["stageArn", "nextToken", "maxResults"])
        let (_, stageId) = try stageARN(fields, "stageArn")
        let limit = try maxResults(fields)
        let before = try PageToken.decode(fields.string("nextToken", length: 0...1024)) ?? Int64.max
        let page = try await store.sessions(stageId: stageId, beforeSeq: before, limit: limit + 1)
        return IVSAPI.ListStageSessionsResponse(
            stageSessions: page.prefix(limit).map { .init(sessionId: $0.sessionId, startTime: $0.startTime, endTime: $0.endTime) },
            nextToken: page.count > limit ? PageToken.encode(page[limit - 1].seq) : nil)
    }
}
