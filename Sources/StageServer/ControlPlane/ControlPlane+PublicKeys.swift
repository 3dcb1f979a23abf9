import Foundation
@preconcurrency import Crypto
import StageProtocol

extension ControlPlane {
    func publicKeyShape(_ key: PublicKeyRecord, withMaterial: Bool = true) -> IVSAPI.PublicKey {
        .init(arn: names.publicKey(key.id), name: key.name, publicKeyMaterial: withMaterial ? key.material : nil,
              fingerprint: withMaterial ? key.fingerprint : nil, tags: key.tags)
    }

    func publicKeyARN(_ fields: RequestFields) throws(APIError) -> (arn: String, id: String) {
        guard let arn = try fields.string("arn", required: true, length: 1...128) else { throw .validation("arn: required") }
        guard arn.hasPrefix("arn:aws:ivs:"), arn.contains(":public-key/") else {
            throw .validation("arn: must match arn:aws:ivs:<region>:<account>:public-key/<id>")
        }
        guard let id = names.publicKeyId(fromARN: arn) else { throw .notFound("arn: no public key \(arn) in this account and region") }
        return (arn, id)
    }

    func importPublicKey(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["publicKeyMaterial", "name", "tags"])
        guard let material = try fields.string("publicKeyMaterial", required: true, length: 1...8192) else {
            throw APIError.validation("publicKeyMaterial: required")
        }
        let name = try fields.string("name", length: 0...128, allowed: FieldRules.isNameCharacter, rule: FieldRules.nameRule) ?? ""
        let tags = try fields.stringMap("tags") ?? [:]
        try FieldRules.checkTags(tags, field: "tags")
        let key: P384.Signing.PublicKey
        do {
            key = try P384.Signing.PublicKey(pemRepresentation: material)
        } catch {
            throw APIError.validation("publicKeyMaterial: must be a PEM-encoded ECDSA P-384 public key (-----BEGIN PUBLIC KEY-----)")
        }
        let fingerprint = SHA256.hash(data: key.derRepresentation).map { String(format: "%02x", $0) }.joined(separator: ":")
        guard let record = try await store.insertPublicKey(id: Identifiers.publicKeyId(), name: name, material: material,
                                                           fingerprint: fingerprint, tags: tags) else {
            throw APIError.conflict("publicKeyMaterial: a public key with fingerprint \(fingerprint) is already imported")
        }
        return IVSAPI.PublicKeyResponse(publicKey: publicKeyShape(record))
    }

    func getPublicKey(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["arn"])
        let (arn, id) = try publicKeyARN(fields)
        guard let record = try await store.publicKey(id: id) else { throw APIError.notFound("arn: public key \(arn) does not exist") }
        return IVSAPI.PublicKeyResponse(publicKey: publicKeyShape(record))
    }

    func listPublicKeys(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["nextToken", "maxResults"])
        let limit = try maxResults(fields)
        let after = try PageToken.decode(fields.string("nextToken", length: 0...1024)) ?? 0
        let page = try await store.publicKeys(afterSeq: after, limit: limit + 1)
        return IVSAPI.ListPublicKeysResponse(publicKeys: page.prefix(limit).map { publicKeyShape($0, withMaterial: false) },
                                             nextToken: page.count > limit ? PageToken.encode(page[limit - 1].seq) : nil)
    }

    func deletePublicKey(_ body: [UInt8]) async throws -> any Encodable & Sendable {
        let fields = try RequestFields.parse(body, allowed: ["arn"])
        let (arn, id) = try publicKeyARN(fields)
        guard try await store.deletePublicKey(id: id) else { throw APIError.notFound("arn: public key \(arn) does not exist") }
        return IVSAPI.Empty()
    }

    /// The imported keys, for verifying self-signed participant tokens.
    /// The imported key whose ARN is `arn` (none when no such key), or every imported key for nil.
    static func importedKeys(_ store: Store, arn: String?, names: ResourceNames) async throws -> [P384.Signing.PublicKey] {
        let records: [PublicKeyRecord]
        if let arn {
            guard let id = names.publicKeyId(fromARN: arn), let record = try await store.publicKey(id: id) else { return [] }
            records = [record]
        } else {
            records = try await store.publicKeys(afterSeq: 0, limit: 1000)
        }
        return records.compactMap { try? P384.Signing.PublicKey(pemRepresentation: $0.material) }
    }
}
