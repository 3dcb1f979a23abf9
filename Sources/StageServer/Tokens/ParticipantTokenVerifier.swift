import Foundation
@preconcurrency import Crypto
import StageProtocol

/// Why a participant token was refused, mapped onto a signaling error code.
struct TokenRejection: Error, Hashable {
    var code: SignalErrorCode
    var reason: String
}

/// Checks participant tokens: structure, ES384 signature (the server's key, or a customer key
/// registered with ImportPublicKey), expiry and claim layout.
struct ParticipantTokenVerifier: Sendable {
    let serverKey: P384.Signing.PublicKey
    let serverKeyId: String

    struct JOSEHeader: Decodable {
        var alg: String
        var kid: String?
    }

    /// - Parameter importedKeys: loaded only when the server key does not match.
    func verify(_ token: String, now: Date = Date(),
                importedKeys: () async throws -> [P384.Signing.PublicKey]) async throws(TokenRejection) -> ParticipantTokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard token.utf8.count <= 8192, parts.count == 3,
              let headerBytes = Base64URL.decode(parts[0]), let signatureBytes = Base64URL.decode(parts[2]) else {
            throw TokenRejection(code: .invalidToken, reason: "token: not a compact JWT (three base64url parts, at most 8192 bytes)")
        }
        guard let header = try? JSONDecoder().decode(JOSEHeader.self, from: headerBytes) else {
            throw TokenRejection(code: .invalidToken, reason: "token: the JOSE header is not a JSON object with 'alg'")
        }
        guard header.alg == "ES384" else {
            throw TokenRejection(code: .invalidToken, reason: "token: alg must be ES384, got '\(header.alg)'")
        }
        guard let signature = try? P384.Signing.ECDSASignature(rawRepresentation: signatureBytes) else {
            throw TokenRejection(code: .invalidToken, reason: "token: an ES384 signature is 96 bytes (r||s)")
        }
        let signingInput = Data((parts[0] + "." + parts[1]).utf8)
        if !serverKey.isValidSignature(signature, for: signingInput) {
            let candidates = (try? await importedKeys()) ?? []
            guard candidates.contains(where: { $0.isValidSignature(signature, for: signingInput) }) else {
                throw TokenRejection(code: .invalidToken,
                                     reason: "token: signature does not verify with the server key or any imported public key")
            }
        }
        let claims: ParticipantTokenClaims
        do {
            claims = try ParticipantTokenClaims.decodeUnverified(token)
        } catch {
            throw TokenRejection(code: .invalidToken, reason: "token: claims are not the IVS participant-token layout")
        }
        guard claims.version == "1.0" else {
            throw TokenRejection(code: .invalidToken, reason: "token: version must be \"1.0\", got \"\(claims.version)\"")
        }
        guard Double(claims.exp) > now.timeIntervalSince1970 else {
            throw TokenRejection(code: .tokenExpired, reason: "token: expired at \(Date(timeIntervalSince1970: Double(claims.exp)))")
        }
        return claims
    }
}
