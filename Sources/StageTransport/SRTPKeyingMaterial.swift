/// SRTP master keys and salts of one association: exported from DTLS (RFC 5764 §4.2:
/// `client_key | server_key | client_salt | server_salt` from the "EXTRACTOR-dtls_srtp"
/// exporter), or made for a pipe between routers (`pipePair(profile:)`).
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
}
