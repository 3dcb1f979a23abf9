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

    /// The key is chosen by the JOSE header's `kid` (RFC 7515 §4.1.4): the server's key id
    /// picks the server key, an imported key's ARN picks that key alone, and another `kid` is
    /// refused. A token without `kid` (IVS's self-signed layout) is tried with the server key,
    /// then with every imported key.
    /// - Parameter importedKeys: the imported keys whose ARN is the given `kid`, or all of them
    ///   for nil; loaded only when the server key is not the one.
    func verify(_ token: String, now: Date = Date(),
                importedKeys: (_ kid: String?) async throws -> [P384.Signing.PublicKey]) async throws(TokenRejection) -> ParticipantTokenClaims {
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
        switch header.kid {
        case serverKeyId?:
            guard serverKey.isValidSignature(signature, for: signingInput) else {
                throw TokenRejection(code: .invalidToken, reason: "token: signature does not verify with the server key its kid names")
            }
        case let kid?:
            let named = (try? await importedKeys(kid)) ?? []
            guard !named.isEmpty else {
                throw TokenRejection(code: .invalidToken, reason: "token: kid '\(kid.prefix(160))' is neither the server key id "
                                     + "nor the ARN of an imported public key")
            }
            guard named.contains(where: { $0.isValidSignature(signature, for: signingInput) }) else {
                throw TokenRejection(code: .invalidToken, reason: "token: signature does not verify with the imported public key its kid names")
            }
        case nil:
            if !serverKey.isValidSignature(signature, for: signingInput) {
                let candidates = (try? await importedKeys(nil)) ?? []
                guard candidates.contains(where: { $0.isValidSignature(signature, for: signingInput) }) else {
                    throw TokenRejection(code: .invalidToken,
                                         reason: "token: signature does not verify with the server key or any imported public key")
                }
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
        try Self.checkLimits(claims, now: now)
        return claims
    }

    /// The limits CreateParticipantToken enforces, applied to every token, self-signed ones
    /// included: a lifetime of at most 14 days (IVS's 20,160 minutes), no issue or not-before
    /// time in the future (a minute of clock skew allowed), a participant id (`jti`) of 1–64
    /// characters `[A-Za-z0-9_-]`, and attributes of at most 1 KB.
    static func checkLimits(_ claims: ParticipantTokenClaims, now: Date) throws(TokenRejection) {
        let nowSeconds = Int(now.timeIntervalSince1970)
        let skew = 60
        let maxLifetime = FieldRules.tokenMinutes.upperBound * 60
        guard claims.iat <= nowSeconds + skew else {
            throw TokenRejection(code: .invalidToken, reason: "token: iat \(claims.iat) is in the future")
        }
        if let nbf = claims.nbf, nbf > nowSeconds + skew {
            throw TokenRejection(code: .invalidToken, reason: "token: not valid before \(Date(timeIntervalSince1970: Double(nbf)))")
        }
        guard claims.exp - claims.iat <= maxLifetime, claims.exp <= nowSeconds + maxLifetime else {
            throw TokenRejection(code: .invalidToken, reason: "token: exp is more than 14 days (20160 minutes) after iat or now")
        }
        guard (1...64).contains(claims.jti.count), claims.jti.allSatisfy(FieldRules.isNameCharacter) else {
            throw TokenRejection(code: .invalidToken, reason: "token: jti (the participant id) must be 1–64 characters [A-Za-z0-9_-]")
        }
        do {
            try FieldRules.checkAttributes(claims.attributes ?? [:], field: "token: attributes")
        } catch {
            throw TokenRejection(code: .invalidToken, reason: error.message)
        }
    }
}
