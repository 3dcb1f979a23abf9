import Foundation
import StageProtocol

/// The `ivs` channel operations: Create/Get/List/DeleteChannel. A channel here is the HLS
/// output of a composition, played from this server at `playbackUrl`; nothing ingests RTMP or
/// SRT, so `ingestEndpoint` is only this server's host, and the stream key is kept for shape.
/// What this server cannot honour is refused rather than echoed: playback authorization,
/// multitrack input, MPEG-TS packaging (HLS here is fragmented MP4), and the recording,
/// playback-restriction and ad configurations (this server has none of them).
extension ControlPlane {
    static let channelOperations: [String: Operation] = [
        "CreateChannel": { try await $0.createChannel($1) },
        "GetChannel": { try await $0.getChannel($1) },
        "ListChannels": { try await $0.listChannels($1) },
        "DeleteChannel": { try await $0.deleteChannel($1) },
        "GetStream": { try await $0.getStream($1) },
        "ListStreams": { try await $0.listStreams($1) },
    ]

    enum ChannelRules {
        static let latencyModes = ["NORMAL", "LOW"]
        static let types = ["BASIC", "STANDARD", "ADVANCED_SD", "ADVANCED_HD"]
        static let presets = ["HIGHER_BANDWIDTH_DELIVERY", "CONSTRAINED_BANDWIDTH_DELIVERY"]
        static let containerFormats = ["TS", "FRAGMENTED_MP4"]
        static let fields: Set<String> = [
            "name", "latencyMode", "type", "authorized", "recordingConfigurationArn", "tags", "insecureIngest", "preset",
            "playbackRestrictionPolicyArn", "multitrackInputConfiguration", "containerFormat", "adConfigurationArn",
        ]
        /// The optional ARNs of configurations this server has none of: (field, ARN type).
        static let unservedARNs = [("recordingConfigurationArn", "recording-configuration"),
                                   ("playbackRestrictionPolicyArn", "playback-restriction-policy"),
                                   ("adConfigurationArn", "ad-configuration")]
    }

    func channelShape(_ record: ChannelRecord) -> IVSAPI.Channel {
        .init(arn: names.channel(record.id), name: record.name, latencyMode: record.latencyMode, type: record.type,
              recordingConfigurationArn: "", ingestEndpoint: endpoints.host, playbackUrl: endpoints.playbackURL(channelId: record.id),
              authorized: false, tags: record.tags, insecureIngest: record.insecureIngest, preset: record.preset,
              playbackRestrictionPolicyArn: "", containerFormat: record.containerFormat, adConfigurationArn: "")
    }

    func streamKeyShape(_ record: ChannelRecord) -> IVSAPI.StreamKey {
        .init(arn: names.streamKey(record.streamKeyId), value: record.streamKeyValue, channelArn: names.channel(record.id), tags: record.tags)
    }

    /// An optional `^$|^arn:aws:ivs:…:<type>/…$` ARN of a kind this server has none of: a given
    /// one is ResourceNotFoundException; returns whether one was given.
    func unservedARN(_ fields: RequestFields, _ field: String, type: String, refuse: Bool) throws(APIError) -> Bool {
        guard let arn = try fields.string(field, length: 0...128), !arn.isEmpty else { return false }
        guard FieldRules.matchesARN(arn, type: type) else {
            throw .validation("\(field): must be empty or match arn:aws:ivs:<region>:<account>:\(type)/<id> ([a-zA-Z0-9-]+)")
        }
        if refuse { throw .notFound("\(field): \(arn) does not exist (this server has no \(type) resources)") }
        return true
    }

    func existingChannel(_ fields: RequestFields, _ field: String) async throws -> ChannelRecord {
        guard let arn = try fields.arn(field, type: .channel, required: true) else { throw APIError.validation("\(field): required") }
        guard let id = names.id(fromARN: arn, type: .channel), let record = try await store.channel(id: id) else {
            throw APIError.notFound("\(field): channel \(arn) does not exist")
        }
        return record
    }

    func createChannel(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ChannelRules.fields)
        let name = try fields.string("name", length: 0...128, allowed: FieldRules.isNameCharacter, rule: FieldRules.nameRule) ?? ""
        let latencyMode = try fields.enumeration("latencyMode", allowed: ChannelRules.latencyModes) ?? "LOW"
        let type = try fields.enumeration("type", allowed: ChannelRules.types) ?? "STANDARD"
        let advanced = type.hasPrefix("ADVANCED")
        let preset = try fields.enumeration("preset", allowed: ChannelRules.presets)
        if preset != nil, !advanced {
            throw APIError.validation("preset: selectable only for ADVANCED_SD and ADVANCED_HD channels, not \(type)")
        }
        if try fields.bool("authorized") == true {
            throw APIError.validation("authorized: playback authorization is not supported by this server; must be false")
        }
        let insecureIngest = try fields.bool("insecureIngest") ?? false
        if let multitrack = try fields.object("multitrackInputConfiguration", allowed: ["enabled", "policy", "maximumResolution"]) {
            _ = try multitrack.enumeration("policy", allowed: ["ALLOW", "REQUIRE"])
            _ = try multitrack.enumeration("maximumResolution", allowed: ["SD", "HD", "FULL_HD"])
            if try multitrack.bool("enabled") == true {
                throw APIError.validation("multitrackInputConfiguration.enabled: multitrack input is not supported by this server")
            }
        }
        let containerFormat = try fields.enumeration("containerFormat", allowed: ChannelRules.containerFormats) ?? "FRAGMENTED_MP4"
        if containerFormat == "TS" {
            throw APIError.validation("containerFormat: this server packages HLS as fragmented MP4 only; TS is not supported")
        }
        let tags = try fields.stringMap("tags") ?? [:]
        try FieldRules.checkIVSTags(tags, field: "tags")
        for (field, arnType) in ChannelRules.unservedARNs { _ = try unservedARN(fields, field, type: arnType, refuse: true) }
        let record = try await store.insertChannel(.init(
            seq: 0, id: Identifiers.channelId(), name: name, latencyMode: latencyMode, type: type,
            preset: advanced ? (preset ?? "HIGHER_BANDWIDTH_DELIVERY") : "", insecureIngest: insecureIngest,
            containerFormat: containerFormat, tags: tags, streamKeyId: Identifiers.streamKeyId(),
            streamKeyValue: Identifiers.streamKeyValue(region: names.region)))
        ServerLog.api.info("channel created", metadata: ["channel": "\(record.id)"])
        return IVSAPI.CreateChannelResponse(channel: channelShape(record), streamKey: streamKeyShape(record))
    }

    func getChannel(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["arn"])
        return IVSAPI.ChannelResponse(channel: channelShape(try await existingChannel(fields, "arn")))
    }

    /// The filters are mutually exclusive (ConflictException, as IVS answers); every channel
    /// here has no recording configuration, playback restriction policy or ad configuration.
    func listChannels(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: [
            "filterByName", "filterByRecordingConfigurationArn", "filterByPlaybackRestrictionPolicyArn", "filterByAdConfigurationArn",
            "nextToken", "maxResults",
        ])
        let name = try fields.string("filterByName", length: 0...128, allowed: FieldRules.isNameCharacter, rule: FieldRules.nameRule)
        var setFilters = name.map { $0.isEmpty ? [] : ["filterByName"] } ?? []
        for (field, arnType) in ChannelRules.unservedARNs {
            let filter = "filterBy" + field.prefix(1).uppercased() + field.dropFirst()
            if try unservedARN(fields, filter, type: arnType, refuse: false) { setFilters.append(filter) }
        }
        let limit = try maxResults(fields, default: 100)
        let after = try pageStart(fields)
        guard setFilters.count <= 1 else {
            throw APIError.conflict("\(setFilters.joined(separator: ", ")): the filters are mutually exclusive; set at most one")
        }
        if let filter = setFilters.first, filter != "filterByName" { return IVSAPI.ListChannelsResponse(channels: []) }
        let page = try await store.channels(name: name.flatMap { $0.isEmpty ? nil : $0 }, afterSeq: after, limit: limit + 1)
        return IVSAPI.ListChannelsResponse(
            channels: page.prefix(limit).map {
                .init(arn: names.channel($0.id), name: $0.name, latencyMode: $0.latencyMode, authorized: false, recordingConfigurationArn: "",
                      tags: $0.tags, insecureIngest: $0.insecureIngest, type: $0.type, preset: $0.preset,
                      playbackRestrictionPolicyArn: "", adConfigurationArn: "")
            },
            nextToken: page.count > limit ? PageToken.encode(page[limit - 1].seq) : nil)
    }

    /// 204 with no body, as the model says; ConflictException while a composition feeds the channel.
    func deleteChannel(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["arn"])
        guard let arn = try fields.arn("arn", type: .channel, required: true) else { throw APIError.validation("arn: required") }
        let id = names.id(fromARN: arn, type: .channel)
        let outcome = try await id.asyncMap { try await store.deleteChannel(id: $0) }
        switch outcome ?? .notFound {
        case .deleted:
            if let id { await forgetChannel(id) }
            return IVSAPI.NoContent()
        case .notFound: throw APIError.notFound("arn: channel \(arn) does not exist")
        case .inUse(let composition):
            throw APIError.conflict("arn: channel \(arn) is live, fed by composition \(names.composition(composition)); stop it first")
        }
    }
}
