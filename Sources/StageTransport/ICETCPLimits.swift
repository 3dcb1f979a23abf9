public import NIOCore

/// What one client may make the ICE-TCP listener (RFC 6544, passive) hold before it has
/// proved it knows a peer's ICE password, and the shape of what it may send after.
public struct ICETCPLimits: Sendable {
    /// Connections open at once, authenticated or not; more are closed as they are accepted.
    public var maximumConnections: Int
    /// Connections open at once that have not yet sent a verified Binding request.
    public var maximumUnauthenticated: Int
    /// Time from accept to the first Binding request whose USERNAME and MESSAGE-INTEGRITY verify.
    public var authenticationTimeout: TimeAmount
    /// The longest RFC 4571 frame: the media port's UDP read size, so nothing is accepted over
    /// TCP that could not arrive as a datagram. A longer frame closes the connection.
    public var maximumFrameLength: Int
    /// Bytes queued for a connection before further packets to it are dropped (a client that
    /// does not read cannot make the server buffer without bound).
    public var sendBufferHighWater: Int

    public init(maximumConnections: Int = 1024, maximumUnauthenticated: Int = 256,
                authenticationTimeout: TimeAmount = .seconds(10), maximumFrameLength: Int = MediaEngine.maximumPacketLength,
                sendBufferHighWater: Int = 1 << 20) {
        self.maximumConnections = maximumConnections
        self.maximumUnauthenticated = maximumUnauthenticated
        self.authenticationTimeout = authenticationTimeout
        self.maximumFrameLength = maximumFrameLength
        self.sendBufferHighWater = sendBufferHighWater
    }
}
