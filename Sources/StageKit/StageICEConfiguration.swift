import StageTransport
import StageWire

/// How the stage's media connections find a path to the server (the ICE part of W3C
/// `RTCConfiguration`): STUN servers for server-reflexive candidates, TURN servers (UDP or TCP)
/// for relayed ones when the server cannot be reached directly, and relay-only if wanted.
/// Without servers, host candidates (every interface, UDP and TCP) reach a server that is not
/// behind a NAT of its own, which is how a stage server is deployed.
public struct StageICEConfiguration: Sendable, Hashable {
    /// One STUN or TURN server (W3C `RTCIceServer` with one URL).
    public struct Server: Sendable, Hashable {
        public let url: String
        public let username: String?
        public let credential: String?
        let parsed: ICEServerURL

        /// - Parameter url: `stun:host[:port]` or `turn:host[:port][?transport=udp|tcp]` (RFC 7064, RFC 7065).
        /// - Throws: `StageConfigurationError` naming `url` when it is not one of those, or
        ///   `credential` when a TURN server has no username and credential.
        public init(url: String, username: String? = nil, credential: String? = nil) throws(StageConfigurationError) {
            do {
                parsed = try ICEServerURL(parsing: url)
            } catch {
                throw StageConfigurationError(field: "url", message: error.reason)
            }
            if parsed.scheme == .turn, username == nil || credential == nil {
                throw StageConfigurationError(field: "credential", message: "a TURN server needs a username and a credential (RFC 8656 §9.2)")
            }
            self.url = url
            self.username = username
            self.credential = credential
        }
    }

    /// `all` (default) or `relay`: only paths through a TURN server (W3C `iceTransportPolicy`).
    public enum TransportPolicy: String, Sendable, Hashable, CaseIterable {
        case all
        case relay
    }

    public var servers: [Server]
    public var transportPolicy: TransportPolicy

    public init(servers: [Server] = [], transportPolicy: TransportPolicy = .all) {
        self.servers = servers
        self.transportPolicy = transportPolicy
    }

    /// The transport layer's form.
    var agentConfiguration: ICEConfiguration {
        ICEConfiguration(servers: servers.map { .init(url: $0.parsed, username: $0.username, credential: $0.credential) },
                         transportPolicy: transportPolicy == .relay ? .relay : .all)
    }
}
