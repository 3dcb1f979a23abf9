import Foundation

/// Random identifiers in the shapes IVS uses.
enum Identifiers {
    static let alphanumerics = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")

    static func random(_ length: Int, from alphabet: [Character] = alphanumerics) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
    }

    static func stageId() -> String { random(12) }
    static func participantId() -> String { random(12) }
    static func publicKeyId() -> String { random(12) }
    /// `st-` and 13 characters: 16 in all, as the model's StageSessionId requires.
    static func sessionId() -> String { "st-" + random(13) }
    static func accountId() -> String { random(12, from: Array("0123456789")) }
    static func compositionId() -> String { random(12) }
    static func destinationId() -> String { random(12) }
    static func encoderConfigurationId() -> String { random(12) }
    static func storageConfigurationId() -> String { random(12) }
    static func channelId() -> String { random(12) }
    static func streamKeyId() -> String { random(12) }
    /// `st-` and 23 characters: 26 in all, as the `ivs` model's StreamId requires.
    static func streamId() -> String { "st-" + random(23) }
    /// A stream key value in IVS's shape, `sk_<region>_<secret>`.
    static func streamKeyValue(region: String) -> String { "sk_\(region)_" + random(36) }
}

/// `arn:aws:ivs:<region>:<account>:<type>/<id>`.
struct ResourceNames: Sendable {
    var region: String
    var accountId: String

    func stage(_ id: String) -> String { "arn:aws:ivs:\(region):\(accountId):stage/\(id)" }
    func publicKey(_ id: String) -> String { "arn:aws:ivs:\(region):\(accountId):public-key/\(id)" }
    func composition(_ id: String) -> String { arn(type: .composition, id: id) }
    func encoderConfiguration(_ id: String) -> String { arn(type: .encoderConfiguration, id: id) }
    func storageConfiguration(_ id: String) -> String { arn(type: .storageConfiguration, id: id) }
    func channel(_ id: String) -> String { arn(type: .channel, id: id) }
    func streamKey(_ id: String) -> String { arn(type: .streamKey, id: id) }

    /// The resource types of the composition and channel APIs, as their ARNs spell them.
    enum ResourceType: String, Sendable {
        case composition
        case encoderConfiguration = "encoder-configuration"
        case storageConfiguration = "storage-configuration"
        case channel
        case streamKey = "stream-key"
        case stage
    }

    func arn(type: ResourceType, id: String) -> String { "arn:aws:ivs:\(region):\(accountId):\(type.rawValue)/\(id)" }

    /// The id of an ARN of `type` of this account and region, or nil.
    func id(fromARN arn: String, type: ResourceType) -> String? { id(fromARN: arn, type: type.rawValue) }

    /// The id of a stage ARN of this account, or nil when the ARN names another region, account or type.
    func stageId(fromARN arn: String) -> String? { id(fromARN: arn, type: "stage") }
    func publicKeyId(fromARN arn: String) -> String? { id(fromARN: arn, type: "public-key") }

    private func id(fromARN arn: String, type: String) -> String? {
        let prefix = "arn:aws:ivs:\(region):\(accountId):\(type)/"
        guard arn.hasPrefix(prefix) else { return nil }
        let id = String(arn.dropFirst(prefix.count))
        return id.isEmpty ? nil : id
    }
}
