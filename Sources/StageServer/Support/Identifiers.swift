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
}

/// `arn:aws:ivs:<region>:<account>:<type>/<id>`.
struct ResourceNames: Sendable {
    var region: String
    var accountId: String

    func stage(_ id: String) -> String { "arn:aws:ivs:\(region):\(accountId):stage/\(id)" }
    func publicKey(_ id: String) -> String { "arn:aws:ivs:\(region):\(accountId):public-key/\(id)" }

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
