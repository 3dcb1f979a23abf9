import NIOSSL

/// The server's certificate chain and private key, as PEM files (`--tls-cert`, `--tls-key`).
public struct TLSFiles: Sendable, Hashable {
    /// PEM certificate chain: the server's certificate first, then any intermediates.
    public var certificateChain: String
    /// PEM private key (PKCS#8, PKCS#1 or SEC1) of the first certificate, unencrypted.
    public var privateKey: String

    public init(certificateChain: String, privateKey: String) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }

    /// Reads both files and checks that the key belongs to the certificate.
    /// - Throws: `TLSFilesError` naming the flag and the file.
    func makeServerConfiguration() throws(TLSFilesError) -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateChain)
        } catch {
            throw TLSFilesError(reason: "--tls-cert \(certificateChain): cannot read a PEM certificate chain (\(error))")
        }
        guard !chain.isEmpty else {
            throw TLSFilesError(reason: "--tls-cert \(certificateChain): holds no PEM certificate")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: privateKey, format: .pem)
        } catch {
            throw TLSFilesError(reason: "--tls-key \(privateKey): cannot read an unencrypted PEM private key (\(error))")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) },
                                                                      privateKey: .privateKey(key))
        configuration.applicationProtocols = ["http/1.1"]
        // BoringSSL checks here that the key belongs to the first certificate.
        do {
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw TLSFilesError(reason: "--tls-key \(privateKey): not the private key of the first certificate in "
                                + "--tls-cert \(certificateChain) (\(error))")
        }
        return configuration
    }
}

/// A TLS file the server cannot use; the reason names the flag and the file.
public struct TLSFilesError: Error, CustomStringConvertible, Sendable {
    public var reason: String
    public var description: String { reason }
}
