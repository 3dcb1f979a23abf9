import Foundation
@preconcurrency import Crypto

/// Secrets kept in the data directory, created on first start with owner-only permissions.
enum ServerSecrets {
    struct AccessKey: Codable, Sendable {
        var accessKeyId: String
        var secretAccessKey: String
    }

    /// The control-plane key pair: from the environment, else `credentials.json`, else a new one.
    static func accessKey(configuration: ServerConfiguration) throws -> (key: AccessKey, created: Bool) {
        if let id = configuration.accessKeyId, let secret = configuration.secretAccessKey, !id.isEmpty, !secret.isEmpty {
            return (AccessKey(accessKeyId: id, secretAccessKey: secret), false)
        }
        let file = configuration.dataDirectory.appendingPathComponent("credentials.json")
        if let data = try? Data(contentsOf: file) {
            return (try JSONDecoder().decode(AccessKey.self, from: data), false)
        }
        let upper = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        let key = AccessKey(accessKeyId: "AKPS" + Identifiers.random(16, from: upper),
                            secretAccessKey: Identifiers.random(40))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try writePrivate(encoder.encode(key), to: file)
        return (key, true)
    }

    /// The ES384 key that signs participant tokens, as PEM.
    static func tokenSigningKeyPEM(dataDirectory: URL) throws -> String {
        let file = dataDirectory.appendingPathComponent("token-signing-key.pem")
        if let pem = try? String(contentsOf: file, encoding: .utf8) { return pem }
        let pem = P384.Signing.PrivateKey().pemRepresentation
        try writePrivate(Data(pem.utf8), to: file)
        return pem
    }

    private static func writePrivate(_ data: Data, to file: URL) throws {
        guard FileManager.default.createFile(atPath: file.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: file.path])
        }
    }
}
