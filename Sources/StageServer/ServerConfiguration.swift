public import Foundation

/// What `stage-server` is told on its command line and environment.
public struct ServerConfiguration: Sendable {
    public var host: String
    public var httpPort: Int
    /// UDP port for media (reserved until the media plane lands).
    public var mediaPort: Int
    public var dataDirectory: URL
    /// The base URL clients reach this server at; defaults to `http://127.0.0.1:<httpPort>`.
    public var publicURL: String?
    /// The address announced in ICE candidates; defaults to the host of the public URL.
    public var publicIP: String?
    public var region: String
    public var accessKeyId: String?
    public var secretAccessKey: String?
    /// PEM certificate chain and private key: HTTP, WHIP/WHEP and signaling are then served over
    /// TLS, and the default public URL is `https://127.0.0.1:<httpPort>`.
    public var tls: TLSFiles? = nil

    public init(host: String = "0.0.0.0", httpPort: Int = 8080, mediaPort: Int = 7880, dataDirectory: URL,
                publicURL: String? = nil, publicIP: String? = nil, region: String = "us-east-1", accessKeyId: String? = nil, secretAccessKey: String? = nil) {
        self.host = host
        self.httpPort = httpPort
        self.mediaPort = mediaPort
        self.dataDirectory = dataDirectory
        self.publicURL = publicURL
        self.publicIP = publicIP
        self.region = region
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
    }

    var resolvedCandidateIP: String {
        if let publicIP { return publicIP }
        let host = URL(string: resolvedPublicURL)?.host ?? "127.0.0.1"
        return host == "localhost" ? "127.0.0.1" : host
    }

    var resolvedPublicURL: String {
        var url = publicURL ?? "\(tls == nil ? "http" : "https")://127.0.0.1:\(httpPort)"
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
