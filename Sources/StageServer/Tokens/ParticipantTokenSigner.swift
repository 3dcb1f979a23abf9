import Foundation
@preconcurrency import Crypto
public import StageProtocol

/// Mints participant tokens: compact JWS (RFC 7515) with ES384 (RFC 7518 §3.4) over the IVS claims.
public struct ParticipantTokenSigner: Sendable {
    let privateKey: P384.Signing.PrivateKey
    /// The `kid` header value; verifiers use it to pick this key.
    public let keyId: String

    public init(pemRepresentation pem: String, keyId: String? = nil) throws {
        privateKey = try P384.Signing.PrivateKey(pemRepresentation: pem)
        self.keyId = keyId ?? Self.keyId(for: privateKey.publicKey)
    }

    init(privateKey: P384.Signing.PrivateKey) {
        self.privateKey = privateKey
        keyId = Self.keyId(for: privateKey.publicKey)
    }

    /// A new random key, for tests and for self-signing examples.
    public static func generate() -> ParticipantTokenSigner { .init(privateKey: .init()) }

    public var privateKeyPEM: String { privateKey.pemRepresentation }
    public var publicKeyPEM: String { privateKey.publicKey.pemRepresentation }

    /// - Parameter includeKeyId: IVS self-signed tokens carry no `kid`; the server's own do.
    public func sign(_ claims: ParticipantTokenClaims, includeKeyId: Bool = true) throws -> String {
        var header: [String: String] = ["alg": "ES384", "typ": "JWT"]
        if includeKeyId { header["kid"] = keyId }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let signingInput = Base64URL.encode(try encoder.encode(header)) + "." + Base64URL.encode(try encoder.encode(claims))
        let signature = try privateKey.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }

    static func keyId(for key: P384.Signing.PublicKey) -> String {
        "ps-" + SHA256.hash(data: key.derRepresentation).prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
