import Foundation
import StageProtocol

/// Create/Get/List/DeleteStorageConfiguration. Nothing leaves this machine: a configuration's
/// `s3.bucketName` names the directory `<data dir>/s3/<bucketName>`, made at creation; composite
/// recordings go below it. Deleting a configuration leaves the directory and its recordings.
extension ControlPlane {
    static let storageConfigurationOperations: [String: Operation] = [
        "CreateStorageConfiguration": { try await $0.createStorageConfiguration($1) },
        "GetStorageConfiguration": { try await $0.getStorageConfiguration($1) },
        "ListStorageConfigurations": { try await $0.listStorageConfigurations($1) },
        "DeleteStorageConfiguration": { try await $0.deleteStorageConfiguration($1) },
    ]

    /// The model's S3BucketName (3–63 of `[a-z0-9-.]`) and S3's own naming rules, which also keep
    /// the name a plain directory name: it starts and ends with a letter or digit, and has no "..".
    static func checkBucketName(_ name: String, field: String) throws(APIError) {
        guard let first = name.first, let last = name.last, first.isLetter || first.isNumber, last.isLetter || last.isNumber else {
            throw .validation("\(field): must start and end with a lowercase letter or digit (S3 bucket naming rules)")
        }
        guard !name.contains("..") else { throw .validation("\(field): must not contain two adjacent periods (S3 bucket naming rules)") }
    }

    func storageConfigurationShape(_ record: StorageConfigurationRecord) -> IVSAPI.StorageConfiguration {
        .init(arn: names.storageConfiguration(record.id), name: record.name, s3: .init(bucketName: record.bucketName), tags: record.tags)
    }

    func existingStorageConfiguration(_ fields: RequestFields, _ field: String) async throws -> StorageConfigurationRecord {
        guard let arn = try fields.arn(field, type: .storageConfiguration, required: true) else { throw APIError.validation("\(fields.name(field)): required") }
        guard let id = names.id(fromARN: arn, type: .storageConfiguration), let record = try await store.storageConfiguration(id: id) else {
            throw APIError.notFound("\(fields.name(field)): storage configuration \(arn) does not exist")
        }
        return record
    }

    /// `<data dir>/s3/<bucketName>`.
    func bucketDirectory(_ bucketName: String) -> URL { storageRoot.appendingPathComponent(bucketName, isDirectory: true) }

    func createStorageConfiguration(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["name", "s3", "tags"])
        let name = try fields.string("name", length: 0...128, allowed: FieldRules.isNameCharacter, rule: FieldRules.nameRule) ?? ""
        guard let s3 = try fields.object("s3", allowed: ["bucketName"]) else { throw APIError.validation("s3: required") }
        guard let bucket = try s3.string("bucketName", required: true, length: 3...63,
                                         allowed: { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == ".") },
                                         rule: "allowed: lowercase letters, digits, '-' and '.' ([a-z0-9-.]+)") else {
            throw APIError.validation("s3.bucketName: required")
        }
        try Self.checkBucketName(bucket, field: "s3.bucketName")
        let tags = try fields.stringMap("tags") ?? [:]
        try FieldRules.checkTags(tags, field: "tags")
        do {
            try FileManager.default.createDirectory(at: bucketDirectory(bucket), withIntermediateDirectories: true)
        } catch {
            ServerLog.api.error("bucket directory not created", metadata: ["path": "\(bucketDirectory(bucket).path)", "error": "\(error)"])
            throw APIError(kind: .internalError, message: "s3.bucketName: the directory for bucket '\(bucket)' could not be created on this server")
        }
        let record = try await store.insertStorageConfiguration(.init(seq: 0, id: Identifiers.storageConfigurationId(), name: name,
                                                                      bucketName: bucket, tags: tags))
        return IVSAPI.StorageConfigurationResponse(storageConfiguration: storageConfigurationShape(record))
    }

    func getStorageConfiguration(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["arn"])
        return IVSAPI.StorageConfigurationResponse(storageConfiguration: storageConfigurationShape(try await existingStorageConfiguration(fields, "arn")))
    }

    func listStorageConfigurations(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["nextToken", "maxResults"])
        let limit = try maxResults(fields, default: 100)
        let page = try await store.storageConfigurations(afterSeq: try pageStart(fields), limit: limit + 1)
        return IVSAPI.ListStorageConfigurationsResponse(storageConfigurations: page.prefix(limit).map(storageConfigurationShape),
                                                        nextToken: page.count > limit ? PageToken.encode(page[limit - 1].seq) : nil)
    }

    func deleteStorageConfiguration(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["arn"])
        guard let arn = try fields.arn("arn", type: .storageConfiguration, required: true) else { throw APIError.validation("arn: required") }
        let outcome = try await names.id(fromARN: arn, type: .storageConfiguration).asyncMap { try await store.deleteStorageConfiguration(id: $0) }
        switch outcome ?? .notFound {
        case .deleted: return IVSAPI.Empty()
        case .notFound: throw APIError.notFound("arn: storage configuration \(arn) does not exist")
        case .inUse(let composition):
            throw APIError.conflict("arn: storage configuration \(arn) is used by composition \(names.composition(composition)); stop it first")
        }
    }
}
