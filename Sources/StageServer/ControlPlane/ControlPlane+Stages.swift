import Foundation
import StageProtocol

extension ControlPlane {
    static let recordingFields: Set<String> = [
        "storageConfigurationArn", "mediaTypes", "thumbnailConfiguration", "recordingReconnectWindowSeconds",
        "hlsConfiguration", "recordParticipantReplicas",
    ]

    func stageShape(_ stage: StageRecord) async -> IVSAPI.Stage {
        IVSAPI.Stage(arn: names.stage(stage.id), name: stage.name, activeSessionId: await hub.activeSessionId(stageId: stage.id),
                     tags: stage.tags, endpoints: .init(events: endpoints.events(stageId: stage.id), whip: endpoints.whip))
    }

    func createStage(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["name", "participantTokenConfigurations", "tags", "autoParticipantRecordingConfiguration"])
        let name = try fields.string("name", length: 0...128, allowed: FieldRules.isNameCharacter, rule: FieldRules.nameRule) ?? ""
        let tags = try fields.stringMap("tags") ?? [:]
        try FieldRules.checkTags(tags, field: "tags")
        if try fields.object("autoParticipantRecordingConfiguration", allowed: Self.recordingFields) != nil {
            throw APIError.validation("autoParticipantRecordingConfiguration: recording to S3 is not supported by this server")
        }
        let configurations = try fields.list("participantTokenConfigurations", count: 0...12) ?? []
        var requests: [TokenRequest] = []
        for (index, item) in configurations.enumerated() {
            let path = "participantTokenConfigurations[\(index)]"
            guard case .object(let members) = item else { throw APIError.validation("\(path): must be an object") }
            let config = try RequestFields(path: path, members: members, allowed: ["duration", "userId", "attributes", "capabilities"])
            requests.append(try TokenRequest(config))
        }
        let stageId = Identifiers.stageId()
        let minted = try requests.map { try mint($0, stageId: stageId) }
        let stage = try await store.insertStage(id: stageId, name: name, tags: tags, tokens: minted.map(\.record))
        ServerLog.api.info("stage created", metadata: ["stage": "\(stageId)", "tokens": "\(minted.count)"])
        return IVSAPI.CreateStageResponse(stage: await stageShape(stage), participantTokens: minted.map(\.shape))
    }

    func getStage(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["arn"])
        return IVSAPI.StageResponse(stage: await stageShape(try await existingStage(fields, "arn")))
    }

    func listStages(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["nextToken", "maxResults"])
        let limit = try maxResults(fields)
        let after = try PageToken.decode(fields.string("nextToken", length: 0...1024)) ?? 0
        let page = try await store.stages(afterSeq: after, limit: limit + 1)
        var summaries: [IVSAPI.StageSummary] = []
        for stage in page.prefix(limit) {
            summaries.append(.init(arn: names.stage(stage.id), name: stage.name,
                                   activeSessionId: await hub.activeSessionId(stageId: stage.id), tags: stage.tags))
        }
        let next = page.count > limit ? page[limit - 1].seq : nil
        return IVSAPI.ListStagesResponse(stages: summaries, nextToken: next.map(PageToken.encode))
    }

    func updateStage(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["arn", "name", "autoParticipantRecordingConfiguration"])
        let (arn, id) = try stageARN(fields, "arn")
        let name = try fields.string("name", length: 0...128, allowed: FieldRules.isNameCharacter, rule: FieldRules.nameRule)
        if try fields.object("autoParticipantRecordingConfiguration", allowed: Self.recordingFields) != nil {
            throw APIError.validation("autoParticipantRecordingConfiguration: recording to S3 is not supported by this server")
        }
        guard let current = try await store.stage(id: id) else { throw APIError.notFound("arn: stage \(arn) does not exist") }
        var updated: StageRecord? = current
        if let name { updated = try await store.renameStage(id: id, name: name) }
        guard let updated else { throw APIError.notFound("arn: stage \(arn) does not exist") }
        return IVSAPI.StageResponse(stage: await stageShape(updated))
    }

    func deleteStage(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["arn"])
        let (arn, id) = try stageARN(fields, "arn")
        guard try await store.deleteStage(id: id) else { throw APIError.notFound("arn: stage \(arn) does not exist") }
        await hub.closeStage(stageId: id)
        await board.stopCompositions(ofStage: id, reason: "the stage was deleted")
        ServerLog.api.info("stage deleted", metadata: ["stage": "\(id)"])
        return IVSAPI.Empty()
    }
}
