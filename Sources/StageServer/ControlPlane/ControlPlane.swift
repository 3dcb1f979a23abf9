import Foundation
import StageProtocol

/// URLs handed to clients in stage endpoints and token claims.
struct PublicEndpoints: Sendable {
    /// e.g. `http://127.0.0.1:8080`
    var baseURL: String

    var webSocketBase: String {
        if baseURL.hasPrefix("https://") { return "wss://" + baseURL.dropFirst("https://".count) }
        if baseURL.hasPrefix("http://") { return "ws://" + baseURL.dropFirst("http://".count) }
        return baseURL
    }
    func events(stageId: String) -> String { "\(webSocketBase)/events/\(stageId)" }
    var whip: String { "\(baseURL)/whip" }
    /// The HLS master playlist of a channel: `<base>/hls/<channelId>/master.m3u8`.
    func playbackURL(channelId: String) -> String { "\(baseURL)/hls/\(channelId)/master.m3u8" }
    /// A web page that plays the channel: `<base>/play/<channelId>`.
    func playerURL(channelId: String) -> String { "\(baseURL)/play/\(channelId)" }
    /// The host (and port) of the base URL: a channel's `ingestEndpoint`.
    var host: String {
        guard let url = URL(string: baseURL), let host = url.host else { return baseURL }
        return url.port.map { "\(host):\($0)" } ?? host
    }
}

/// The Amazon IVS Real-Time operations and the `ivs` channel operations (`POST /<Operation>`;
/// the two services' operation names are disjoint), over the store, the live signaling state
/// and the composition board. Each operation validates its whole input before it changes anything.
struct ControlPlane: Sendable {
    let store: Store
    let names: ResourceNames
    let signer: ParticipantTokenSigner
    let hub: SignalingHub
    let endpoints: PublicEndpoints
    let board: CompositionBoard
    let runner: any CompositionRunner
    /// `<data dir>/s3`: a storage configuration's bucket is the directory `<storageRoot>/<bucketName>`.
    let storageRoot: URL
    /// channelId → viewers of its HLS stream now (from the HLS origin).
    let viewerCount: @Sendable (String) async -> Int
    /// A deleted channel's playlists and media leave the HLS origin.
    var forgetChannel: @Sendable (String) async -> Void = { _ in }

    typealias Operation = @Sendable (ControlPlane, [UInt8]) async throws -> any Encodable & Sendable

    static let operations: [String: Operation] = realTimeOperations
        .merging(compositionOperations) { first, _ in first }
        .merging(channelOperations) { first, _ in first }

    static let realTimeOperations: [String: Operation] = [
        "CreateStage": { try await $0.createStage($1) },
        "GetStage": { try await $0.getStage($1) },
        "ListStages": { try await $0.listStages($1) },
        "UpdateStage": { try await $0.updateStage($1) },
        "DeleteStage": { try await $0.deleteStage($1) },
        "CreateParticipantToken": { try await $0.createParticipantToken($1) },
        "DisconnectParticipant": { try await $0.disconnectParticipant($1) },
        "GetParticipant": { try await $0.getParticipant($1) },
        "ListParticipants": { try await $0.listParticipants($1) },
        "ListParticipantEvents": { try await $0.listParticipantEvents($1) },
        "GetStageSession": { try await $0.getStageSession($1) },
        "ListStageSessions": { try await $0.listStageSessions($1) },
        "ImportPublicKey": { try await $0.importPublicKey($1) },
        "GetPublicKey": { try await $0.getPublicKey($1) },
        "ListPublicKeys": { try await $0.listPublicKeys($1) },
        "DeletePublicKey": { try await $0.deletePublicKey($1) },
    ]

    /// Runs one operation; anything that is not an APIError becomes InternalServerException.
    func handle(operation name: String, body: [UInt8]) async throws(APIError) -> any Encodable & Sendable {
        guard let operation = Self.operations[name] else {
            throw APIError(kind: .notFound, message: "operation: '\(name)' is not an ivs-realtime or ivs operation served here")
        }
        do {
            return try await operation(self, body)
        } catch let error as APIError {
            throw error
        } catch {
            ServerLog.api.error("operation failed", metadata: ["operation": "\(name)", "error": "\(error)"])
            throw APIError(kind: .internalError, message: "internal error while running \(name)")
        }
    }

    // MARK: Shared readers

    func stageARN(_ fields: RequestFields, _ field: String) throws(APIError) -> (arn: String, id: String) {
        guard let arn = try fields.string(field, required: true, length: 1...128) else { throw .validation("\(field): required") }
        guard arn.hasPrefix("arn:aws:ivs:"), arn.contains(":stage/") else {
            throw .validation("\(field): must match arn:aws:ivs:<region>:<account>:stage/<id>")
        }
        guard let id = names.stageId(fromARN: arn) else { throw .notFound("\(field): no stage \(arn) in this account and region") }
        return (arn, id)
    }

    func existingStage(_ fields: RequestFields, _ field: String) async throws -> StageRecord {
        let (arn, id) = try stageARN(fields, field)
        guard let stage = try await store.stage(id: id) else { throw APIError.notFound("\(field): stage \(arn) does not exist") }
        return stage
    }

    func sessionId(_ fields: RequestFields) throws(APIError) -> String {
        guard let id = try fields.string("sessionId", required: true, length: 16...16) else { throw .validation("sessionId: required") }
        guard id.hasPrefix("st-"), id.dropFirst(3).allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw .validation("sessionId: must match st-[a-zA-Z0-9]+")
        }
        return id
    }

    /// `maxResults`, 1–`limit`; IVS's default is 50 for the stage APIs, 100 for the others.
    func maxResults(_ fields: RequestFields, limit: Int = 100, default value: Int = 50) throws(APIError) -> Int {
        try fields.integer("maxResults", range: 1...limit) ?? value
    }

    /// `nextToken`, as the model constrains it.
    func pageStart(_ fields: RequestFields) throws(APIError) -> Int64 {
        try PageToken.decode(fields.string("nextToken", length: 0...1024)) ?? 0
    }
}
