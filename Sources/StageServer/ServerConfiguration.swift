public import Foundation
import NIOCore
public import StageTransport

/// What `stage-server` is told on its command line and environment.
public struct ServerConfiguration: Sendable {
    /// The address to listen on; `0.0.0.0` or `::` mean every address, IPv4 and IPv6.
    public var host: String
    public var httpPort: Int
    /// The UDP port of the first media worker (ICE-lite, DTLS, SRTP), on IPv4 and IPv6: worker
    /// n serves `mediaPort + n` (0: each picks one).
    public var mediaPort: Int
    /// The ICE-TCP port of the first media worker (RFC 6544 passive candidates, RFC 4571
    /// framing); worker n serves `mediaTCPPort + n`. Nil: the default 7881, left off with a
    /// warning when those ports are taken; 0: off; any other: those ports, and the server does
    /// not start without them.
    public var mediaTCPPort: Int?
    /// Media workers: event loops, each with its own ports and the stages placed on it
    /// (`MediaWorkers`). Default: one per core.
    public var mediaWorkers = System.coreCount
    /// What an unauthenticated ICE-TCP client can make the server hold.
    public var iceTCPLimits = ICETCPLimits()
    public var dataDirectory: URL
    /// The base URL clients reach this server at; defaults to `http://127.0.0.1:<httpPort>`.
    public var publicURL: String?
    /// The addresses announced in ICE candidates, most preferred first (IPv4 or IPv6
    /// literals). Empty: chosen from `host` and the interfaces (see `AdvertisedAddresses`).
    public var publicIPs: [String]
    public var region: String
    public var accessKeyId: String?
    public var secretAccessKey: String?
    /// PEM certificate chain and private key: HTTP, WHIP/WHEP and signaling are then served over
    /// TLS, and the default public URL is `https://127.0.0.1:<httpPort>`.
    public var tls: TLSFiles? = nil
    /// Seconds a composition runs on after the last publisher left its stage (or after its start,
    /// when nobody publishes) before it stops by itself, as IVS does after one minute.
    public var compositionIdleTimeoutSeconds: Double = 60
    /// Publishers a stage may have at once (IVS: 12).
    public var maxPublishersPerStage = 12
    /// Seconds a stage session outlives its last participant: who reconnects within it (a
    /// network change, a page reload) continues the same session instead of starting one.
    public var sessionLingerSeconds: Double = 30
    /// Whether each subscriber's simulcast layers follow its downlink estimate (the stream
    /// allocator); off, every subscriber gets the layer it asks for whatever its link carries.
    public var downlinkAdaptation = true
    /// Whether SDK publishers are told which simulcast layers subscribers use (`publishLayers`),
    /// so they stop encoding the others; off, every layer is always sent.
    public var dynacast = true
    /// Whether lost packets are repaired: NACKs to publishers for upstream loss, subscribers'
    /// NACKs answered (RFC 4585, RFC 4588). Off only as a benchmark's reference.
    public var lossRepair = true
    /// Whether each subscriber's video is paced at a multiple of its downlink estimate
    /// (`PacingBudget`); it needs `downlinkAdaptation` (the estimate). Off only as a benchmark's reference.
    public var pacing = true
    /// An HTTP connection with nothing to read or write this long is closed (requests that
    /// trickle in, connections held open): seconds. WebSockets have their own pings.
    public var httpIdleTimeoutSeconds: Double = 30
    /// Open HTTP and WebSocket connections at most (kept below the open-file limit, with a
    /// margin for the media sockets and files); more wait in the listen backlog.
    public var maxHTTPConnections = 10_000

    /// Consumers one media worker holds before a stage's new subscribers are placed on a router
    /// on another worker, piped from the stage's first (`--worker-max-consumers`).
    public var workerMaxConsumers = ServerConfiguration.defaultWorkerMaxConsumers
    public static let defaultWorkerMaxConsumers = 2_000

    /// The most media workers a server runs (each is a thread and two ports).
    public static let maximumMediaWorkers = 256

    /// The ICE-TCP port when `mediaTCPPort` is not given.
    public static let defaultMediaTCPPort = 7881

    public init(host: String = "0.0.0.0", httpPort: Int = 8080, mediaPort: Int = 7880, mediaTCPPort: Int? = nil, dataDirectory: URL,
                publicURL: String? = nil, publicIPs: [String] = [], region: String = "us-east-1", accessKeyId: String? = nil,
                secretAccessKey: String? = nil) {
        self.host = host
        self.httpPort = httpPort
        self.mediaPort = mediaPort
        self.mediaTCPPort = mediaTCPPort
        self.dataDirectory = dataDirectory
        self.publicURL = publicURL
        self.publicIPs = publicIPs
        self.region = region
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
    }

    /// Checks one `--public-ip` value: an IPv4 or IPv6 literal clients can send to.
    /// - Returns: its canonical text.
    /// - Throws: `ServerConfigurationError` naming `--public-ip` and the rule.
    public static func validatePublicIP(_ value: String) throws(ServerConfigurationError) -> String {
        try AdvertisedAddresses.validate(publicIP: value)
    }

    /// The addresses put in ICE candidates, most preferred first.
    /// - Throws: `ServerConfigurationError` naming `--public-ip` for a value that is not an address.
    func advertisedAddresses(interfaces: () -> [AdvertisedAddresses.Interface] = AdvertisedAddresses.systemInterfaces) throws(ServerConfigurationError) -> [String] {
        // Only a --public-url given on the command line: the default's 127.0.0.1 must not rank first.
        try AdvertisedAddresses.resolve(publicIPs: publicIPs, host: host, publicURLHost: publicURL.flatMap { URL(string: $0)?.host },
                                        interfaces: interfaces)
    }

    var resolvedPublicURL: String {
        var url = publicURL ?? "\(tls == nil ? "http" : "https")://127.0.0.1:\(httpPort)"
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
