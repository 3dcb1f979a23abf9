/// Failures of the DTLS handshake and of SRTP.
public enum DTLSError: Error, Hashable, CustomStringConvertible {
    case openSSL(String)
    case handshakeFailed(String)
    case fingerprintMismatch
    case noSRTPProfile
    case unsupportedSRTPProfile(UInt)

    public var description: String {
        switch self {
        case .openSSL(let call): "OpenSSL: \(call) failed"
        case .handshakeFailed(let reason): "DTLS handshake failed: \(reason)"
        case .fingerprintMismatch: "the peer's certificate does not match the fingerprint in its SDP"
        case .noSRTPProfile: "the peer negotiated no SRTP protection profile (use_srtp, RFC 5764 §4.1.2)"
        case .unsupportedSRTPProfile(let id): "SRTP protection profile \(id) is not supported"
        }
    }
}
