import Foundation
import StageProtocol

/// Create/Get/List/DeleteEncoderConfiguration: the rendition a composition encodes.
extension ControlPlane {
    static let encoderConfigurationOperations: [String: Operation] = [
        "CreateEncoderConfiguration": { try await $0.createEncoderConfiguration($1) },
        "GetEncoderConfiguration": { try await $0.getEncoderConfiguration($1) },
        "ListEncoderConfigurations": { try await $0.listEncoderConfigurations($1) },
        "DeleteEncoderConfiguration": { try await $0.deleteEncoderConfiguration($1) },
    ]

    /// The `Video` rules: width and height 2–1920 and even, at most 2,073,600 pixels (1920×1080
    /// or 1080×1920), framerate 1–60, bitrate 1–8,500,000; IVS's defaults 1280×720, 30, 2.5 Mbps.
    enum VideoRules {
        static let dimension = 2...1920
        static let maxPixels = 2_073_600
        static let framerate = 1.0...60.0
        static let bitrate = 1...8_500_000
        static let defaults = CompositionPlan.VideoEncoding(width: 1280, height: 720, framerate: 30, bitrate: 2_500_000)
    }

    func readVideo(_ fields: RequestFields) throws(APIError) -> CompositionPlan.VideoEncoding {
        var video = VideoRules.defaults
        guard let given = try fields.object("video", allowed: ["width", "height", "framerate", "bitrate"]) else { return video }
        video.width = try given.integer("width", range: VideoRules.dimension) ?? video.width
        video.height = try given.integer("height", range: VideoRules.dimension) ?? video.height
        for (field, value) in [("width", video.width), ("height", video.height)] where value % 2 != 0 {
            throw .validation("\(given.name(field)): must be an even number, got \(value)")
        }
        guard video.width * video.height <= VideoRules.maxPixels else {
            throw .validation("video.width, video.height: \(video.width)×\(video.height) is \(video.width * video.height) pixels; "
                              + "at most \(VideoRules.maxPixels) (1920×1080 or 1080×1920)")
        }
        video.framerate = try given.number("framerate", range: VideoRules.framerate) ?? video.framerate
        video.bitrate = try given.integer("bitrate", range: VideoRules.bitrate) ?? video.bitrate
        return video
    }

    func encoderConfigurationShape(_ record: EncoderConfigurationRecord) -> IVSAPI.EncoderConfiguration {
        .init(arn: names.encoderConfiguration(record.id), name: record.name,
              video: .init(width: record.width, height: record.height, framerate: record.framerate, bitrate: record.bitrate),
              tags: record.tags)
    }

    /// The id of the encoder configuration at `field`; ResourceNotFoundException when it is not one of this server's.
    func existingEncoderConfiguration(_ fields: RequestFields, _ field: String) async throws -> EncoderConfigurationRecord {
        guard let arn = try fields.arn(field, type: .encoderConfiguration, required: true) else { throw APIError.validation("\(fields.name(field)): required") }
        guard let id = names.id(fromARN: arn, type: .encoderConfiguration), let record = try await store.encoderConfiguration(id: id) else {
            throw APIError.notFound("\(fields.name(field)): encoder configuration \(arn) does not exist")
        }
        return record
    }

    func createEncoderConfiguration(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["name", "video", "tags"])
        let name = try fields.string("name", length: 0...128, allowed: FieldRules.isNameCharacter, rule: FieldRules.nameRule) ?? ""
        let video = try readVideo(fields)
        let tags = try fields.stringMap("tags") ?? [:]
        try FieldRules.checkTags(tags, field: "tags")
        let record = try await store.insertEncoderConfiguration(.init(
            seq: 0, id: Identifiers.encoderConfigurationId(), name: name, width: video.width, height: video.height,
            framerate: video.framerate, bitrate: video.bitrate, tags: tags))
        return IVSAPI.EncoderConfigurationResponse(encoderConfiguration: encoderConfigurationShape(record))
    }

    func getEncoderConfiguration(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["arn"])
        return IVSAPI.EncoderConfigurationResponse(encoderConfiguration: encoderConfigurationShape(try await existingEncoderConfiguration(fields, "arn")))
    }

    func listEncoderConfigurations(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["nextToken", "maxResults"])
        let limit = try maxResults(fields, default: 100)
        let page = try await store.encoderConfigurations(afterSeq: try pageStart(fields), limit: limit + 1)
        return IVSAPI.ListEncoderConfigurationsResponse(
            encoderConfigurations: page.prefix(limit).map { .init(arn: names.encoderConfiguration($0.id), name: $0.name, tags: $0.tags) },
            nextToken: page.count > limit ? PageToken.encode(page[limit - 1].seq) : nil)
    }

    func deleteEncoderConfiguration(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["arn"])
        guard let arn = try fields.arn("arn", type: .encoderConfiguration, required: true) else { throw APIError.validation("arn: required") }
        let outcome = try await names.id(fromARN: arn, type: .encoderConfiguration).asyncMap { try await store.deleteEncoderConfiguration(id: $0) }
        switch outcome ?? .notFound {
        case .deleted: return IVSAPI.Empty()
        case .notFound: throw APIError.notFound("arn: encoder configuration \(arn) does not exist")
        case .inUse(let composition):
            throw APIError.conflict("arn: encoder configuration \(arn) is used by composition \(names.composition(composition)); stop it first")
        }
    }
}

extension Optional {
    /// `map` with an async throwing transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
