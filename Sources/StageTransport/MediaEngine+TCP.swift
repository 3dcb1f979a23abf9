import NIOCore

/// ICE-TCP connections (RFC 6544 §7.2, passive candidates): what an unauthenticated client can
/// make the server hold is bounded by `ICETCPLimits`, and every refusal or forced close is
/// counted by its `MediaDropReason`.
extension MediaEngine {
    /// Refused at accept; the bootstrap closes the channel.
    struct ConnectionRefused: Error {}

    /// A connection the listener accepted (on the event loop): admitted under the caps, given
    /// its deadline to authenticate, or refused.
    func accept(_ channel: any Channel) throws {
        guard tcpConnections.count < tcpLimits.maximumConnections, unauthenticatedTCP < tcpLimits.maximumUnauthenticated,
              let remote = channel.remoteAddress else {
            MediaDropReason.tcpConnectionLimit.count()
            throw ConnectionRefused()
        }
        let connection = ICETCPConnection(channel: channel, remote: remote, maximumFrameLength: tcpLimits.maximumFrameLength)
        try channel.pipeline.syncOperations.addHandler(ICETCPHandler(engine: self, connection: connection))
        tcpConnections[ObjectIdentifier(connection)] = connection
        unauthenticatedTCP += 1
        connection.authenticationDeadline = eventLoop.scheduleTask(in: tcpLimits.authenticationTimeout) { [weak self, weak connection] in
            guard let self, let connection, !connection.isAuthenticated else { return }
            self.closeTCP(connection, reason: .tcpAuthTimeout)
        }
    }

    /// Binds `connection` to `peer` on a verified Binding request.
    /// - Returns: false when it already belongs to another peer.
    func authenticate(_ connection: ICETCPConnection, as peer: MediaPeer) -> Bool {
        if connection.isAuthenticated { return connection.peer === peer }
        _ = connection.authenticate(as: peer)
        unauthenticatedTCP -= 1
        peer.tcpConnections.append(connection)
        return true
    }

    /// Closes a connection, after flushing what was written to it.
    /// - Parameter reason: counted when the close is a refusal (nil when its peer ended).
    func closeTCP(_ connection: ICETCPConnection, reason: MediaDropReason?) {
        guard !connection.isClosing else { return }
        connection.isClosing = true
        reason?.count()
        if let reason { logger.debug("ICE-TCP connection closed", metadata: ["remote": "\(connection.remote)", "reason": "\(reason.rawValue)"]) }
        if connection.needsFlush { connection.channel.flush() }
        connection.channel.close(promise: nil)
    }

    /// The connection ended (either side). If it was a peer's selected path, the peer goes
    /// silent until it nominates another path or its consent expires (RFC 7675).
    func connectionClosed(_ connection: ICETCPConnection) {
        guard tcpConnections.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return }
        connection.isClosing = true
        connection.authenticationDeadline?.cancel()
        guard connection.isAuthenticated else {
            unauthenticatedTCP -= 1
            return
        }
        guard let peer = connection.peer else { return }
        peer.tcpConnections.removeAll { $0 === connection }
        if peer.selectedPath?.connection === connection {
            peer.selectedPath = nil
            logger.info("the selected ICE-TCP connection closed; the peer is silent until it nominates another path",
                        metadata: ["peer": "\(peer.id)", "remote": "\(connection.remote)"])
        }
    }
}
