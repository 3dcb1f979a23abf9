public import NIOCore

/// What the ICE-TCP listener (RFC 6544, passive) holds at most, for everyone together and per
/// source or peer, and the shape of what a connection may send. Connections are cheap to open
/// and each costs a socket and buffers, so every bound is enforced at accept or authentication
/// and every refusal or forced close is counted by its `MediaDropReason` (`tcp_…`).
///
/// - Server-wide: ``maximumConnections`` and ``maximumUnauthenticated``.
/// - Per source (an IPv4 address, or an IPv6 /64, what one host or site usually holds):
///   ``maximumUnauthenticatedPerSource``, so one client cannot take every pending slot.
/// - Per peer connection, once authenticated: ``maximumPerPeer``, and connections that are not
///   its selected path close after ``unselectedTimeout``.
public struct ICETCPLimits: Sendable {
    /// Connections open at once on the whole server, authenticated or not; more are closed as
    /// they are accepted (`tcp_connection_limit`).
    public var maximumConnections: Int
    /// Connections open at once on the whole server that have not yet sent a verified Binding
    /// request; more are closed as they are accepted (`tcp_connection_limit`).
    public var maximumUnauthenticated: Int
    /// Connections not yet authenticated from one IPv4 address or one IPv6 /64; more are closed
    /// as they are accepted (`tcp_source_limit`).
    public var maximumUnauthenticatedPerSource: Int
    /// Authenticated connections one peer may hold: the next one closes the peer's oldest that
    /// is not its selected path (`tcp_peer_limit`). At least 1.
    public var maximumPerPeer: Int
    /// Time from accept to the first Binding request whose USERNAME and MESSAGE-INTEGRITY
    /// verify (`tcp_auth_timeout`).
    public var authenticationTimeout: TimeAmount
    /// An authenticated connection that is not its peer's selected path is closed once it has
    /// gone this long without a verified check and without being the selected path
    /// (`tcp_not_selected`): the peer's media moved elsewhere and the client keeps no use for it.
    public var unselectedTimeout: TimeAmount
    /// The longest RFC 4571 frame: the media port's UDP read size, so nothing is accepted over
    /// TCP that could not arrive as a datagram. A longer frame closes the connection.
    public var maximumFrameLength: Int
    /// Bytes queued for a connection before further packets to it are dropped (a client that
    /// does not read cannot make the server buffer without bound).
    public var sendBufferHighWater: Int

    public init(maximumConnections: Int = 1024, maximumUnauthenticated: Int = 256, maximumUnauthenticatedPerSource: Int = 16,
                maximumPerPeer: Int = 4, authenticationTimeout: TimeAmount = .seconds(5), unselectedTimeout: TimeAmount = .seconds(10),
                maximumFrameLength: Int = MediaEngine.maximumPacketLength, sendBufferHighWater: Int = 1 << 20) {
        self.maximumConnections = maximumConnections
        self.maximumUnauthenticated = maximumUnauthenticated
        self.maximumUnauthenticatedPerSource = maximumUnauthenticatedPerSource
        self.maximumPerPeer = max(maximumPerPeer, 1)
        self.authenticationTimeout = authenticationTimeout
        self.unselectedTimeout = unselectedTimeout
        self.maximumFrameLength = maximumFrameLength
        self.sendBufferHighWater = sendBufferHighWater
    }
}
