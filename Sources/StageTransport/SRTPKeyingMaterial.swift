internal import COpenSSL

/// SRTP master keys and salts exported from a DTLS association (RFC 5764 §4.2):
/// `client_key | server_key | client_salt | server_salt` from the "EXTRACTOR-dtls_srtp" exporter.
public struct SRTPKeyingMaterial: Equatable, Sendable {
    public enum Profile: UInt, Sendable {
        /// SRTP_AES128_CM_HMAC_SHA1_80 (RFC 5764 §4.1.2): 16-byte key, 14-byte salt.
        case aes128CmHmacSha1_80 = 0x0001
        /// SRTP_AEAD_AES_128_GCM (RFC 7714 §14.2): 16-byte key, 12-byte salt.
        case aeadAes128Gcm = 0x0007

        var keyLength: Int { 16 }
        var saltLength: Int { self == .aeadAes128Gcm ? 12 : 14 }
    }

    public var profile: Profile
    /// Key followed by salt, for protecting what we send.
    public var local: [UInt8]
    /// Key followed by salt, for unprotecting what the peer sends.
    public var remote: [UInt8]

    public init(profile: Profile, local: [UInt8], remote: [UInt8]) {
        self.profile = profile
        self.local = local
        self.remote = remote
    }

    static func export(from ssl: OpaquePointer, role: DTLSEndpoint.Role) throws -> SRTPKeyingMaterial {
        guard let selected = SSL_get_selected_srtp_profile(ssl) else { throw DTLSError.noSRTPProfile }
        guard let profile = Profile(rawValue: UInt(selected.pointee.id)) else {
            throw DTLSError.unsupportedSRTPProfile(UInt(selected.pointee.id))
        }
        let k = profile.keyLength, s = profile.saltLength
        var material = [UInt8](repeating: 0, count: 2 * (k + s))
        let label = "EXTRACTOR-dtls_srtp"
        guard SSL_export_keying_material(ssl, &material, material.count, label, label.utf8.count, nil, 0, 0) == 1 else {
            throw DTLSError.openSSL("SSL_export_keying_material")
        }
        let clientKey = material[0..<k], serverKey = material[k..<2 * k]
        let clientSalt = material[2 * k..<2 * k + s], serverSalt = material[2 * k + s..<2 * (k + s)]
        let client = Array(clientKey + clientSalt), server = Array(serverKey + serverSalt)
        return role == .client
            ? SRTPKeyingMaterial(profile: profile, local: client, remote: server)
            : SRTPKeyingMaterial(profile: profile, local: server, remote: client)
    }
}
