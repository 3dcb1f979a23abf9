import Foundation
import StageProtocol

/// The `destinations` of StartComposition: one channel, one s3, or one of each. Read in two
/// passes: every rule of the model first (ValidationException), then the channels and
/// configurations they name are looked up (ResourceNotFoundException).
extension ControlPlane {
    enum DestinationRules {
        static let destinationFields: Set<String> = ["name", "channel", "s3"]
        static let channelFields: Set<String> = ["channelArn", "encoderConfigurationArn"]
        static let s3Fields: Set<String> = ["storageConfigurationArn", "encoderConfigurationArns", "recordingConfiguration",
                                            "thumbnailConfigurations"]
        static let targetSegmentDurationSeconds = 2...10
        static let defaultTargetSegmentDurationSeconds = 2
        static let thumbnailIntervalSeconds = 1...86400
        static let defaultThumbnailIntervalSeconds = 60
        static let thumbnailStorage = ["SEQUENTIAL", "LATEST"]
    }

    /// One destination as requested, checked against the model, before any look-up.
    struct RequestedDestination: Sendable {
        var path: String
        /// The echo, defaults applied.
        var configuration: IVSAPI.DestinationConfiguration
        var targetSegmentDurationSeconds: Int = DestinationRules.defaultTargetSegmentDurationSeconds
        var thumbnail: IVSAPI.CompositionThumbnailConfiguration?
    }

    /// A destination with what it names looked up.
    struct ResolvedDestination: Sendable {
        var requested: RequestedDestination
        var channel: ChannelRecord?
        var storage: StorageConfigurationRecord?
        var encoder: EncoderConfigurationRecord?
    }

    func readDestinations(_ fields: RequestFields) throws(APIError) -> [RequestedDestination] {
        guard let items = try fields.objects("destinations", count: 1...2, allowed: DestinationRules.destinationFields) else {
            throw .validation("destinations: required")
        }
        var result: [RequestedDestination] = []
        for item in items {
            let name = try item.string("name", length: 0...128, allowed: FieldRules.isNameCharacter, rule: FieldRules.nameRule) ?? ""
            let channel = try item.object("channel", allowed: DestinationRules.channelFields)
            let s3 = try item.object("s3", allowed: DestinationRules.s3Fields)
            switch (channel, s3) {
            case (.some, .some), (nil, nil):
                throw .validation("\(item.path): set exactly one of channel and s3")
            case (.some(let channel), nil):
                guard let channelArn = try channel.arn("channelArn", type: .channel, required: true) else {
                    throw .validation("\(channel.name("channelArn")): required")
                }
                let encoderArn = try channel.arn("encoderConfigurationArn", type: .encoderConfiguration)
                result.append(.init(path: item.path, configuration: .init(name: name, channel: .init(channelArn: channelArn,
                                                                                                     encoderConfigurationArn: encoderArn))))
            case (nil, .some(let s3)):
                result.append(try readS3Destination(s3, name: name, path: item.path))
            }
        }
        if result.filter({ $0.configuration.channel != nil }).count > 1 || result.filter({ $0.configuration.s3 != nil }).count > 1 {
            throw .validation("destinations: at most one channel destination and one s3 destination")
        }
        return result
    }

    private func readS3Destination(_ s3: RequestFields, name: String, path: String) throws(APIError) -> RequestedDestination {
        guard let storageArn = try s3.arn("storageConfigurationArn", type: .storageConfiguration, required: true) else {
            throw .validation("\(s3.name("storageConfigurationArn")): required")
        }
        guard let encoderArns = try s3.strings("encoderConfigurationArns", count: 1...1) else {
            throw .validation("\(s3.name("encoderConfigurationArns")): required")
        }
        for (index, arn) in encoderArns.enumerated() where !FieldRules.matchesARN(arn, type: "encoder-configuration") || arn.count > 128 {
            throw .validation("\(s3.name("encoderConfigurationArns"))[\(index)]: must match arn:aws:ivs:<region>:<account>:encoder-configuration/<id> ([a-zA-Z0-9-]+)")
        }
        var requested = RequestedDestination(path: path, configuration: .init(name: name))
        if let recording = try s3.object("recordingConfiguration", allowed: ["format", "hlsConfiguration"]) {
            _ = try recording.enumeration("format", allowed: ["HLS"])
            if let hls = try recording.object("hlsConfiguration", allowed: ["targetSegmentDurationSeconds"]) {
                requested.targetSegmentDurationSeconds = try hls.integer("targetSegmentDurationSeconds",
                                                                         range: DestinationRules.targetSegmentDurationSeconds)
                    ?? requested.targetSegmentDurationSeconds
            }
        }
        let thumbnails = try s3.objects("thumbnailConfigurations", count: 0...1, allowed: ["targetIntervalSeconds", "storage"]) ?? []
        for thumbnail in thumbnails {
            let interval = try thumbnail.integer("targetIntervalSeconds", range: DestinationRules.thumbnailIntervalSeconds)
                ?? DestinationRules.defaultThumbnailIntervalSeconds
            var storage: [String] = []
            for (index, kind) in (try thumbnail.strings("storage", count: 0...2) ?? []).enumerated() {
                guard DestinationRules.thumbnailStorage.contains(kind) else {
                    throw .validation("\(thumbnail.name("storage"))[\(index)]: must be one of SEQUENTIAL, LATEST; got '\(kind)'")
                }
                if !storage.contains(kind) { storage.append(kind) }
            }
            requested.thumbnail = .init(targetIntervalSeconds: interval, storage: storage.isEmpty ? ["SEQUENTIAL"] : storage)
        }
        requested.configuration.s3 = .init(
            storageConfigurationArn: storageArn, encoderConfigurationArns: encoderArns,
            recordingConfiguration: .init(format: "HLS", hlsConfiguration: .init(targetSegmentDurationSeconds: requested.targetSegmentDurationSeconds)),
            thumbnailConfigurations: requested.thumbnail.map { [$0] })
        return requested
    }

    /// Looks up the channel and configurations each destination names.
    func resolve(_ destinations: [RequestedDestination]) async throws -> [ResolvedDestination] {
        var result: [ResolvedDestination] = []
        for requested in destinations {
            var resolved = ResolvedDestination(requested: requested)
            if let channel = requested.configuration.channel {
                let field = "\(requested.path).channel.channelArn"
                guard let id = names.id(fromARN: channel.channelArn, type: .channel), let record = try await store.channel(id: id) else {
                    throw APIError.notFound("\(field): channel \(channel.channelArn) does not exist")
                }
                resolved.channel = record
                if let arn = channel.encoderConfigurationArn {
                    resolved.encoder = try await encoderConfiguration(arn, field: "\(requested.path).channel.encoderConfigurationArn")
                }
            }
            if let s3 = requested.configuration.s3 {
                let field = "\(requested.path).s3.storageConfigurationArn"
                guard let id = names.id(fromARN: s3.storageConfigurationArn, type: .storageConfiguration),
                      let record = try await store.storageConfiguration(id: id) else {
                    throw APIError.notFound("\(field): storage configuration \(s3.storageConfigurationArn) does not exist")
                }
                resolved.storage = record
                for (index, arn) in s3.encoderConfigurationArns.enumerated() {
                    let encoder = try await encoderConfiguration(arn, field: "\(requested.path).s3.encoderConfigurationArns[\(index)]")
                    if resolved.encoder == nil { resolved.encoder = encoder }
                }
            }
            result.append(resolved)
        }
        return result
    }

    private func encoderConfiguration(_ arn: String, field: String) async throws -> EncoderConfigurationRecord {
        guard let id = names.id(fromARN: arn, type: .encoderConfiguration), let record = try await store.encoderConfiguration(id: id) else {
            throw APIError.notFound("\(field): encoder configuration \(arn) does not exist")
        }
        return record
    }
}
