public import Foundation

/// The claims of a participant token, laid out as Amazon IVS lays them out (an ES384 JWT).
public struct ParticipantTokenClaims: Codable, Sendable, Hashable {
    /// Expiry, seconds since 1970.
    public var exp: Int
    /// Issue time, seconds since 1970.
    public var iat: Int
    /// The participant id.
    public var jti: String
    /// The stage ARN.
    public var resource: String
    /// The stage id (last component of the ARN).
    public var topic: String
    public var eventsURL: String
    public var whipURL: String
    public var userId: String?
    public var attributes: [String: String]?
    public var capabilities: Capabilities
    public var version: String
    /// Not before, seconds since 1970 (RFC 7519 §4.1.5); IVS's tokens have none, a self-signed
    /// one may.
    public var nbf: Int?

    enum CodingKeys: String, CodingKey {
        case exp, iat, jti, resource, topic, attributes, capabilities, version, nbf
        case eventsURL = "events_url"
        case whipURL = "whip_url"
        case userId = "user_id"
    }

    public init(exp: Int, iat: Int, jti: String, resource: String, topic: String, eventsURL: String, whipURL: String,
                userId: String?, attributes: [String: String]?, capabilities: Capabilities, version: String = "1.0") {
        self.exp = exp
        self.iat = iat
        self.jti = jti
        self.resource = resource
        self.topic = topic
        self.eventsURL = eventsURL
        self.whipURL = whipURL
        self.userId = userId
        self.attributes = attributes
        self.capabilities = capabilities
        self.version = version
    }

    /// Reads the claims of a compact JWT without checking its signature. Clients use this to find
    /// `events_url`; only the server's verification decides whether the token is valid.
    public static func decodeUnverified(_ token: String) throws -> ParticipantTokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])) else {
            throw TokenFormatError(reason: "a participant token is three base64url parts separated by '.'")
        }
        do {
            return try JSONDecoder().decode(ParticipantTokenClaims.self, from: payload)
        } catch {
            throw TokenFormatError(reason: "the token's claims are not the IVS participant-token layout: \(error)")
        }
    }
}

/// A token that is not a well-formed participant JWT.
public struct TokenFormatError: Error, Hashable, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// Base64url without padding (RFC 4648 §5), as JWTs use it (RFC 7515 §2).
public enum Base64URL {
    public static func encode(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Returns `nil` for characters outside the base64url alphabet or an impossible length.
    public static func decode(_ text: String) -> Data? {
        guard text.utf8.allSatisfy({ isAlphabet($0) }), text.utf8.count % 4 != 1 else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    private static let alphabet: Set<UInt8> = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8))

    private static func isAlphabet(_ byte: UInt8) -> Bool { alphabet.contains(byte) }
}
