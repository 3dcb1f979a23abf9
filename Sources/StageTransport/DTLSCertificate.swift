internal import COpenSSL
import Crypto
import Foundation
import StageWire

/// A self-signed ECDSA P-256 certificate for DTLS, identified to the peer by the SHA-256
/// fingerprint carried in SDP (RFC 8122 §5, RFC 8827 §6.5).
public final class DTLSCertificate: @unchecked Sendable {
    let key: OpaquePointer
    let certificate: OpaquePointer
    /// `sha-256` fingerprint bytes of the DER certificate.
    public let fingerprint: [UInt8]

    /// The fingerprint as SDP writes it: upper-case hex pairs joined by `:`.
    public var sdpFingerprint: String { SDPFingerprint(bytes: fingerprint).hex }

    public init(commonName: String = "proscenium") throws {
        let pem = P256.Signing.PrivateKey().pemRepresentation
        guard let bio = pem.withCString({ BIO_new_mem_buf($0, Int32(strlen($0))) }) else { throw DTLSError.openSSL("BIO_new_mem_buf") }
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else { throw DTLSError.openSSL("PEM_read_bio_PrivateKey") }
        guard let x509 = X509_new() else {
            EVP_PKEY_free(key)
            throw DTLSError.openSSL("X509_new")
        }
        self.key = key
        certificate = x509
        X509_set_version(x509, 2)
        ASN1_INTEGER_set(X509_get_serialNumber(x509), Int.random(in: 1..<Int(Int32.max)))
        X509_gmtime_adj(X509_getm_notBefore(x509), -86_400)
        X509_gmtime_adj(X509_getm_notAfter(x509), 30 * 86_400)
        X509_set_pubkey(x509, key)
        let name = X509_get_subject_name(x509)
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0)
        X509_set_issuer_name(x509, name)
        guard X509_sign(x509, key, EVP_sha256()) > 0 else { throw DTLSError.openSSL("X509_sign") }
        guard let digest = DTLSFingerprint.sha256(of: x509) else { throw DTLSError.openSSL("X509_digest") }
        fingerprint = digest
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(key)
    }
}

/// The certificate digest carried in SDP `a=fingerprint` (RFC 8122 §5).
enum DTLSFingerprint {
    static func sha256(of certificate: OpaquePointer) -> [UInt8]? {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, EVP_sha256(), &digest, &length) == 1 else { return nil }
        return Array(digest.prefix(Int(length)))
    }
}
