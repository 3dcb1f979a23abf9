public import StageWire

/// How a client's ICE agent gathers and checks (the W3C `RTCConfiguration` subset that matters
/// here): STUN and TURN servers, relay-only, and which local addresses to use.
public struct ICEConfiguration: Sendable {
    /// A STUN or TURN server; TURN needs the long-term credentials it was given (RFC 8489 §9.2).
    public struct Server: Sendable, Hashable {
        public var url: ICEServerURL
        public var username: String?
        public var credential: String?

        public init(url: ICEServerURL, username: String? = nil, credential: String? = nil) {
            self.url = url
            self.username = username
            self.credential = credential
        }
    }

    /// `all` checks every pair; `relay` only those through a TURN server (W3C iceTransportPolicy).
    public enum TransportPolicy: String, Sendable, Hashable, CaseIterable {
        case all
        case relay
    }

    public var servers: [Server]
    public var transportPolicy: TransportPolicy
    /// Host candidates only on these addresses (the benchmark pins one); nil: every usable
    /// interface address (loopback paired only with a loopback server).
    public var localAddresses: [IPAddress]?
    /// TCP active candidates towards the server's passive ones (RFC 6544), for networks that drop UDP.
    public var tcpCandidates: Bool
    /// How long gathering waits for STUN and TURN servers before the offer goes without them.
    public var gatheringTimeout: Duration

    public init(servers: [Server] = [], transportPolicy: TransportPolicy = .all, localAddresses: [IPAddress]? = nil,
                tcpCandidates: Bool = true, gatheringTimeout: Duration = .seconds(3)) {
        self.servers = servers
        self.transportPolicy = transportPolicy
        self.localAddresses = localAddresses
        self.tcpCandidates = tcpCandidates
        self.gatheringTimeout = gatheringTimeout
    }
}
