import NIOSSL

/// A TLS problem a client can act on: an unusable CA file, a server certificate that failed
/// verification, or a handshake that failed for another reason. `reason` names the file or
/// the host; `code` is stable for programs.
public struct StageTLSError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The CA file cannot be read or holds no PEM certificate.
        case caFileUnusable
        /// The server's certificate is not signed by a trusted CA, or does not name the host.
        case verificationFailed
        /// The TLS handshake failed otherwise (e.g. the server does not speak TLS on that port).
        case handshakeFailed
    }

    public var code: Code
    public var reason: String

    public init(code: Code, reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}

extension StageTLSError {
    /// The readable form of an error from a TLS connection to `host`, or nil when `error` is
    /// not a TLS error (refused connection, timeout, …).
    /// - Parameters:
    ///   - host: `host:port` as the user gave it.
    ///   - trust: what the client trusted, named in the message.
    package static func classify(_ error: any Error, host: String, trust: StageTLSConfiguration) -> StageTLSError? {
        if let error = error as? StageTLSError { return error }
        if let error = error as? NIOSSLExtraError {
            if error == .failedToValidateHostname {
                return StageTLSError(code: .verificationFailed, reason: "TLS verification failed for \(host): "
                                     + "the server's certificate does not name this host (\(error))")
            }
            return StageTLSError(code: .handshakeFailed, reason: "TLS handshake with \(host) failed: \(error)")
        }
        guard let error = error as? NIOSSLError else { return nil }
        let detail = String(describing: error)
        if detail.contains("CERTIFICATE_VERIFY_FAILED") {
            // BoringSSL's error stack adds only source paths to this.
            return StageTLSError(code: .verificationFailed, reason: "TLS verification failed for \(host): "
                                 + "the server's certificate does not lead to a CA in \(trust) (CERTIFICATE_VERIFY_FAILED)")
        }
        return StageTLSError(code: .handshakeFailed, reason: "TLS handshake with \(host) failed: \(detail)")
    }
}
