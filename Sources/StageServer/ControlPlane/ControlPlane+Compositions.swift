import Foundation
import StageLayout
import StageProtocol

/// Start/Get/List/StopComposition. A composition's live state belongs to `CompositionBoard`;
/// here a start is validated, recorded in one transaction and handed to the runner as a plan.
extension ControlPlane {
    static let compositionOperations: [String: Operation] = startStopOperations
        .merging(encoderConfigurationOperations) { first, _ in first }
        .merging(storageConfigurationOperations) { first, _ in first }

    static let startStopOperations: [String: Operation] = [
        "StartComposition": { try await $0.startComposition($1) },
        "GetComposition": { try await $0.getComposition($1) },
        "ListCompositions": { try await $0.listCompositions($1) },
        "StopComposition": { try await $0.stopComposition($1) },
    ]

    /// Compositions that may be live at once on this server (each one is an encoder process
    /// here): ServiceQuotaExceededException past it.
    static let maxLiveCompositions = 16

    /// What a reused idempotency token must carry again: the validated request.
    struct RequestDigest: Encodable {
        var stageId: String
        var layout: LayoutConfiguration
        var destinations: [IVSAPI.DestinationConfiguration]
        var tags: [String: String]
    }

    /// IVS's composite recording prefix, `<stage>/<composition>/<destination>/composite` (IVS
    /// puts an opaque id first; here it is the stage id).
    static func recordingPrefix(stageId: String, compositionId: String, destinationId: String) -> String {
        "\(stageId)/\(compositionId)/\(destinationId)/composite"
    }

    func compositionShape(_ record: CompositionRecord) -> IVSAPI.Composition {
        IVSAPI.Composition(
            arn: names.composition(record.id), stageArn: names.stage(record.stageId), state: record.state.rawValue, layout: record.layout,
            destinations: record.destinations.map {
                .init(id: $0.id, state: $0.state.rawValue, startTime: $0.startTime, endTime: $0.endTime, configuration: $0.configuration,
                      detail: $0.recordingPrefix.map { .init(s3: .init(recordingPrefix: $0)) })
            },
            tags: record.tags, startTime: record.startTime, endTime: record.endTime)
    }

    func startComposition(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["stageArn", "idempotencyToken", "layout", "destinations", "tags"])
        guard let stageArn = try fields.arn("stageArn", type: .stage, required: true) else { throw APIError.validation("stageArn: required") }
        let token = try fields.string("idempotencyToken", length: 1...64, allowed: FieldRules.isNameCharacter,
                                      rule: "allowed: letters, digits, '-' and '_' ([a-zA-Z0-9-_]*)")
        let requested = try readDestinations(fields)
        let tags = try fields.stringMap("tags") ?? [:]
        try FieldRules.checkTags(tags, field: "tags")
        _ = try fields.object("layout", allowed: ["grid", "pip"])
        guard let stageId = names.stageId(fromARN: stageArn), try await store.stage(id: stageId) != nil else {
            throw APIError.notFound("stageArn: stage \(stageArn) does not exist")
        }
        let destinations = try await resolve(requested)
        let video = Self.canvas(destinations)
        let layout = try readLayout(fields, canvas: video)

        let compositionId = Identifiers.compositionId()
        let records = destinations.map { destination -> DestinationRecord in
            let id = Identifiers.destinationId()
            return DestinationRecord(id: id, state: .starting, configuration: destination.requested.configuration,
                                     recordingPrefix: destination.storage == nil ? nil
                                         : Self.recordingPrefix(stageId: stageId, compositionId: compositionId, destinationId: id))
        }
        let encoderIds = Self.unique(destinations.flatMap { d in
            [d.requested.configuration.channel?.encoderConfigurationArn].compactMap { $0 } + (d.requested.configuration.s3?.encoderConfigurationArns ?? [])
        }.compactMap { names.id(fromARN: $0, type: .encoderConfiguration) })
        let channelIndex = destinations.firstIndex { $0.channel != nil }
        let record = CompositionRecord(
            seq: 0, id: compositionId, stageId: stageId, state: .starting, stateReason: nil, layout: layout, destinations: records,
            tags: tags, startTime: Date(), endTime: nil, idempotencyToken: token,
            requestDigest: JSONColumn.encode(RequestDigest(stageId: stageId, layout: layout,
                                                           destinations: requested.map(\.configuration), tags: tags)),
            channelId: channelIndex.flatMap { destinations[$0].channel?.id }, streamId: Identifiers.streamId(),
            encoderConfigurationIds: encoderIds, storageConfigurationIds: destinations.compactMap { $0.storage?.id })
        let requirements = Store.CompositionRequirements(channelIds: record.channelId.map { [$0] } ?? [],
                                                         encoderConfigurationIds: encoderIds,
                                                         storageConfigurationIds: record.storageConfigurationIds)
        switch try await store.insertComposition(record, requires: requirements, maxLive: Self.maxLiveCompositions) {
        case .inserted(let inserted):
            await board.track(inserted)
            ServerLog.api.info("composition starting", metadata: ["composition": "\(compositionId)", "stage": "\(stageId)"])
            await runner.start(plan(for: inserted, destinations: destinations, video: video, layout: layout))
            return IVSAPI.CompositionResponse(composition: compositionShape(inserted))
        case .existing(let previous):
            return IVSAPI.CompositionResponse(composition: compositionShape(previous))
        case .tokenReused(let previous):
            throw APIError.conflict("idempotencyToken: already used by composition \(names.composition(previous)) for a different request")
        case .stageMissing:
            throw APIError.notFound("stageArn: stage \(stageArn) does not exist")
        case .resourceMissing(let id):
            throw APIError.notFound("destinations: \(id) was deleted while the composition was starting")
        case .channelBusy(let previous):
            let field = channelIndex.map { "\(destinations[$0].requested.path).channel.channelArn" } ?? "destinations"
            throw APIError.conflict("\(field): the channel is already fed by composition \(names.composition(previous))")
        case .quotaExceeded(let live):
            throw APIError.quotaExceeded("compositions: at most \(Self.maxLiveCompositions) compositions run at once on this server; \(live) are running")
        }
    }

    /// The canvas: the channel destination's encoder configuration, else the s3 one's, else IVS's defaults.
    static func canvas(_ destinations: [ResolvedDestination]) -> CompositionPlan.VideoEncoding {
        let encoder = destinations.first { $0.channel != nil }?.encoder ?? destinations.first { $0.storage != nil }?.encoder
        guard let encoder else { return VideoRules.defaults }
        return .init(width: encoder.width, height: encoder.height, framerate: encoder.framerate, bitrate: encoder.bitrate)
    }

    func plan(for record: CompositionRecord, destinations: [ResolvedDestination], video: CompositionPlan.VideoEncoding,
              layout: LayoutConfiguration) -> CompositionPlan {
        var plan = CompositionPlan(compositionId: record.id, stageId: record.stageId, layout: layout, video: video)
        for (index, destination) in destinations.enumerated() {
            if let channel = destination.channel {
                plan.channel = .init(destinationIndex: index, channelId: channel.id, latencyMode: channel.latencyMode)
            }
            if let storage = destination.storage, let prefix = record.destinations[index].recordingPrefix {
                plan.recording = .init(destinationIndex: index,
                                       directory: bucketDirectory(storage.bucketName).appendingPathComponent(prefix, isDirectory: true),
                                       targetSegmentDurationSeconds: destination.requested.targetSegmentDurationSeconds,
                                       thumbnailIntervalSeconds: destination.requested.thumbnail?.targetIntervalSeconds,
                                       thumbnailStorage: destination.requested.thumbnail?.storage ?? [])
            }
        }
        return plan
    }

    static func unique(_ ids: [String]) -> [String] {
        var seen: Set<String> = []
        return ids.filter { seen.insert($0).inserted }
    }

    func compositionId(_ fields: RequestFields) throws(APIError) -> (arn: String, id: String?) {
        guard let arn = try fields.arn("arn", type: .composition, required: true) else { throw .validation("arn: required") }
        return (arn, names.id(fromARN: arn, type: .composition))
    }

    func getComposition(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["arn"])
        let (arn, id) = try compositionId(fields)
        guard let record = try await id.asyncMap({ try await store.composition(id: $0) }) ?? nil else {
            throw APIError.notFound("arn: composition \(arn) does not exist")
        }
        return IVSAPI.CompositionResponse(composition: compositionShape(record))
    }

    func listCompositions(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["filterByStageArn", "filterByEncoderConfigurationArn", "nextToken", "maxResults"])
        let stageArn = try fields.arn("filterByStageArn", type: .stage)
        let encoderArn = try fields.arn("filterByEncoderConfigurationArn", type: .encoderConfiguration)
        let limit = try maxResults(fields, default: 100)
        let after = try pageStart(fields)
        let stageId = stageArn.map { names.stageId(fromARN: $0) }
        let encoderId = encoderArn.map { names.id(fromARN: $0, type: .encoderConfiguration) }
        // A filter naming another account or region matches nothing.
        if stageId == .some(nil) || encoderId == .some(nil) { return IVSAPI.ListCompositionsResponse(compositions: []) }
        let page = try await store.compositions(stageId: stageId ?? nil, encoderConfigurationId: encoderId ?? nil, afterSeq: after, limit: limit + 1)
        return IVSAPI.ListCompositionsResponse(
            compositions: page.prefix(limit).map { record in
                .init(arn: names.composition(record.id), stageArn: names.stage(record.stageId),
                      destinations: record.destinations.map { .init(id: $0.id, state: $0.state.rawValue, startTime: $0.startTime, endTime: $0.endTime) },
                      state: record.state.rawValue, tags: record.tags, startTime: record.startTime, endTime: record.endTime)
            },
            nextToken: page.count > limit ? PageToken.encode(page[limit - 1].seq) : nil)
    }

    /// STOPPING, and the runner is told; a composition already stopping or ended is left as it is.
    func stopComposition(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["arn"])
        let (arn, id) = try compositionId(fields)
        guard let id, await board.requestStop(id, reason: "StopComposition") != nil else {
            throw APIError.notFound("arn: composition \(arn) does not exist")
        }
        return IVSAPI.Empty()
    }
}
