internal import COpenSSL
internal import CStageShims

/// The shared OpenSSL `SSL_CTX` for DTLS 1.2 with a certificate and the SRTP profiles we offer,
/// AEAD_AES_128_GCM first (cheaper per packet, RFC 7714), then AES_CM_128_HMAC_SHA1_80.
public final class DTLSContext: @unchecked Sendable {
    let context: OpaquePointer
    public let certificate: DTLSCertificate

    public static let srtpProfiles = "SRTP_AEAD_AES_128_GCM:SRTP_AES128_CM_SHA1_80"

    public init(certificate: DTLSCertificate) throws {
        guard let context = SSL_CTX_new(DTLS_method()) else { throw DTLSError.openSSL("SSL_CTX_new") }
        self.context = context
        self.certificate = certificate
        guard stage_ctx_configure_dtls12(context) == 1 else { throw DTLSError.openSSL("SSL_CTX_set_min_proto_version") }
        guard SSL_CTX_use_certificate(context, certificate.certificate) == 1,
              SSL_CTX_use_PrivateKey(context, certificate.key) == 1 else { throw DTLSError.openSSL("SSL_CTX_use_certificate") }
        guard stage_ctx_set_srtp_profiles(context, Self.srtpProfiles) == 0 else { throw DTLSError.openSSL("SSL_CTX_set_tlsext_use_srtp") }
        stage_ctx_accept_any_peer_certificate(context)
    }

    deinit { SSL_CTX_free(context) }
}
