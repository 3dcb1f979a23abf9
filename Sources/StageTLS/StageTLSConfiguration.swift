#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
package import NIOSSL

/// How a client decides to trust the server on `https://` and `wss://` URLs: the system's CA
/// roots (the default), or the CA certificates of one PEM file (a private CA, a test CA).
///
/// With a CA file, only that file's certificates are trusted, as `curl --cacert` and the AWS
/// CLI's `--ca-bundle` do. Verification is never switched off: the chain must lead to a trusted
/// root, and the certificate must name the URL's host (a DNS name, or for an IP address URL an
/// IP address entry that matches the address connected to).
public struct StageTLSConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// Path of a PEM file of CA certificates; nil trusts the system roots.
    public var caFile: String?

    /// - Parameter caFile: a PEM file of CA certificates to trust instead of the system roots.
    public init(caFile: String? = nil) {
        self.caFile = caFile
    }

    /// The system's CA roots (`/etc/ssl/certs` on Debian).
    public static let systemRoots = StageTLSConfiguration()

    /// The CA file if one is set, else `system roots`; used in error messages.
    public var description: String { caFile.map { "CA file \($0)" } ?? "the system CA roots" }

    /// Checks that the CA file (if any) can be read and holds at least one PEM certificate.
    /// - Throws: `StageTLSError` with code `.caFileUnusable`, naming the file.
    public func validate() throws(StageTLSError) {
        _ = try trustedCertificates()
    }

    /// The certificates of the CA file, or nil for the system roots.
    func trustedCertificates() throws(StageTLSError) -> [NIOSSLCertificate]? {
        guard let caFile else { return nil }
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(caFile)
        } catch {
            throw StageTLSError(code: .caFileUnusable,
                                reason: "CA file \(caFile): cannot read PEM certificates from it (\(error))")
        }
        guard !certificates.isEmpty else {
            throw StageTLSError(code: .caFileUnusable, reason: "CA file \(caFile): holds no PEM certificate")
        }
        return certificates
    }

    /// A NIOSSL client configuration with full verification against these roots.
    package func makeClientConfiguration() throws(StageTLSError) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .fullVerification
        if let certificates = try trustedCertificates() {
            configuration.trustRoots = .certificates(certificates)
        }
        return configuration
    }

    /// True when `host` is an IPv4 or IPv6 literal (which must not be sent as SNI, RFC 6066 §3).
    package static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return bare.withCString { inet_pton(AF_INET, $0, &v4) == 1 || inet_pton(AF_INET6, $0, &v6) == 1 }
    }
}
