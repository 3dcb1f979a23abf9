import Foundation
import StageProtocol

/// The validated input of one participant token (CreateParticipantToken or a CreateStage entry).
struct TokenRequest {
    var duration: Int
    var userId: String
    var attributes: [String: String]
    var capabilities: [String]

    init(_ fields: RequestFields) throws(APIError) {
        duration = try fields.integer("duration", range: FieldRules.tokenMinutes) ?? FieldRules.defaultTokenMinutes
        userId = try fields.string("userId", length: 0...128) ?? ""
        attributes = try fields.stringMap("attributes") ?? [:]
        try FieldRules.checkAttributes(attributes, field: fields.name("attributes"))
        capabilities = try FieldRules.capabilities(fields.list("capabilities", count: 0...2), field: fields.name("capabilities"))
    }
}

extension ControlPlane {
    struct MintedToken {
        var record: TokenRecord
        var shape: IVSAPI.ParticipantToken
    }

    func mint(_ request: TokenRequest, stageId: String, now: Date = Date()) throws -> MintedToken {
        let participantId = Identifiers.participantId()
        let issuedAt = Int(now.timeIntervalSince1970)
        let expiresAt = issuedAt + request.duration * 60
        let claims = ParticipantTokenClaims(
            exp: expiresAt, iat: issuedAt, jti: participantId, resource: names.stage(stageId), topic: stageId,
            eventsURL: endpoints.events(stageId: stageId), whipURL: endpoints.whip, userId: request.userId,
            attributes: request.attributes,
            capabilities: Capabilities(allowPublish: request.capabilities.contains("PUBLISH"),
                                       allowSubscribe: request.capabilities.contains("SUBSCRIBE")))
        let token = try signer.sign(claims)
        let expiry = Date(timeIntervalSince1970: Double(expiresAt))
        return MintedToken(
            record: TokenRecord(participantId: participantId, stageId: stageId, userId: request.userId, attributes: request.attributes,
                                capabilities: request.capabilities, duration: request.duration, expiresAt: expiry,
                                issuedAt: Date(timeIntervalSince1970: Double(issuedAt))),
            shape: IVSAPI.ParticipantToken(participantId: participantId, token: token, userId: request.userId,
                                           attributes: request.attributes, duration: request.duration,
                                           capabilities: request.capabilities, expirationTime: expiry))
    }

    func createParticipantToken(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["stageArn", "duration", "userId", "attributes", "capabilities"])
        let (arn, id) = try stageARN(fields, "stageArn")
        let request = try TokenRequest(fields)
        guard try await store.stage(id: id) != nil else { throw APIError.notFound("stageArn: stage \(arn) does not exist") }
        let minted = try mint(request, stageId: id)
        try await store.insertToken(minted.record)
        return IVSAPI.CreateParticipantTokenResponse(participantToken: minted.shape)
    }

    func disconnectParticipant(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["stageArn", "participantId", "reason"])
        let stage = try await existingStage(fields, "stageArn")
        guard let participantId = try fields.string("participantId", required: true, length: 1...64,
                                                    allowed: FieldRules.isNameCharacter, rule: FieldRules.nameRule) else {
            throw APIError.validation("participantId: required")
        }
        let reason = try fields.string("reason", length: 0...128) ?? ""
        var wasConnected = await hub.disconnect(stageId: stage.id, participantId: participantId, reason: reason)
        if !wasConnected, let endMedia = await hub.endMedia {
            // A participant with media sessions only (a WHEP viewer) is disconnected too.
            wasConnected = await endMedia(stage.id, participantId, "disconnected by the operator")
        }
        guard wasConnected else {
            throw APIError.notFound("participantId: participant \(participantId) is not connected to stage \(names.stage(stage.id))")
        }
        try await store.revoke(participantId: participantId, stageId: stage.id, reason: reason)
        ServerLog.api.info("participant disconnected", metadata: ["stage": "\(stage.id)", "participant": "\(participantId)"])
        return IVSAPI.Empty()
    }
}
