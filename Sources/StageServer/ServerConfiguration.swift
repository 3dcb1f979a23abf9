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
    public var region: String
    public var accessKeyId: String?
    public var secretAccessKey: String?

    public init(host: String = "0.0.0.0", httpPort: Int = 8080, mediaPort: Int = 7880, dataDirectory: URL,
                publicURL: String? = nil, region: String = "us-east-1", accessKeyId: String? = nil, secretAccessKey: String? = nil) {
        self.host = host
        self.httpPort = httpPort
        self.mediaPort = mediaPort
        self.dataDirectory = dataDirectory
        self.publicURL = publicURL
        self.region = region
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
    }

    var resolvedPublicURL: String {
        var url = publicURL ?? "http://127.0.0.1:\(httpPort)"
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
