import NIOCore

/// ICE-TCP connections (RFC 6544 §7.2, passive candidates): what anyone can make the server
/// hold is bounded by `ICETCPLimits` (server-wide, per source, per peer, in time), and every
/// refusal or forced close is counted by its `MediaDropReason`.
///
/// A connection is forgotten when its channel's `closeFuture` completes, whoever closed it and
/// whether or not it ever became active (a channel that fails to register never fires
/// `channelInactive`, and its slots must be given back all the same).
extension MediaEngine {
    /// Refused at accept; the bootstrap closes the channel.
    struct ConnectionRefused: Error {}

    /// A connection the listener accepted (on the event loop): admitted under the caps, given
    /// its deadline to authenticate, or refused.
    func accept(_ channel: any Channel) throws {
        guard let remote = channel.remoteAddress, let source = SourcePrefix(remote) else {
            MediaDropReason.noRemoteAddress.count()
            throw ConnectionRefused()
        }
        guard tcpConnections.count < tcpLimits.maximumConnections, unauthenticatedTCP < tcpLimits.maximumUnauthenticated else {
            MediaDropReason.tcpConnectionLimit.count()
            throw ConnectionRefused()
        }
        guard unauthenticatedTCPBySource[source, default: 0] < tcpLimits.maximumUnauthenticatedPerSource else {
            MediaDropReason.tcpSourceLimit.count()
            throw ConnectionRefused()
        }
        let connection = ICETCPConnection(channel: channel, remote: remote, source: source, maximumFrameLength: tcpLimits.maximumFrameLength)
        try channel.pipeline.syncOperations.addHandler(ICETCPHandler(engine: self, connection: connection))
        tcpConnections[ObjectIdentifier(connection)] = connection
        unauthenticatedTCP += 1
        unauthenticatedTCPBySource[source, default: 0] += 1
        channel.closeFuture.whenComplete { [weak self] _ in self?.connectionClosed(connection) }
        connection.authenticationDeadline = eventLoop.scheduleTask(in: tcpLimits.authenticationTimeout) { [weak self, weak connection] in
            guard let self, let connection, !connection.isAuthenticated else { return }
            self.closeTCP(connection, reason: .tcpAuthTimeout)
        }
    }

    /// Binds `connection` to `peer` on a verified Binding request. Past the peer's cap, its
    /// oldest connection that is not its selected path is closed to make room.
    /// - Returns: false when the connection belongs to another peer (counted `tcp_other_peer`,
    ///   the request is not answered), or, with a cap of 1 held by the selected path, when it
    ///   is refused (closed, `tcp_peer_limit`).
    func authenticate(_ connection: ICETCPConnection, as peer: MediaPeer) -> Bool {
        if connection.isAuthenticated {
            guard connection.peer === peer else {
                MediaDropReason.tcpOtherPeer.count()
                return false
            }
            return true
        }
        if peer.tcpConnections.count >= max(tcpLimits.maximumPerPeer, 1) {
            guard let oldest = peer.tcpConnections.first(where: { peer.selectedPath?.connection !== $0 }) else {
                closeTCP(connection, reason: .tcpPeerLimit)
                return false
            }
            peer.tcpConnections.removeAll { $0 === oldest }
            closeTCP(oldest, reason: .tcpPeerLimit)
        }
        connection.markAuthenticated(as: peer)
        releaseUnauthenticated(connection)
        peer.tcpConnections.append(connection)
        return true
    }

    /// Gives back the slots an unauthenticated connection held.
    private func releaseUnauthenticated(_ connection: ICETCPConnection) {
        unauthenticatedTCP -= 1
        if let count = unauthenticatedTCPBySource[connection.source], count > 1 {
            unauthenticatedTCPBySource[connection.source] = count - 1
        } else {
            unauthenticatedTCPBySource[connection.source] = nil
        }
    }

    /// Closes the peer's connections that are not its selected path and have not been of use
    /// (a verified check, or being the selected path) for `unselectedTimeout`.
    func closeUnselectedTCP(of peer: MediaPeer, now: NIODeadline) {
        let deadline = now - tcpLimits.unselectedTimeout
        for connection in peer.tcpConnections where peer.selectedPath?.connection !== connection && connection.lastUseful < deadline {
            closeTCP(connection, reason: .tcpNotSelected)
        }
    }

    /// Closes a connection: from now on nothing more is read from or written to it, and the
    /// channel is closed on the next event loop turn, after the current read burst flushed
    /// what was written to it.
    ///
    /// Not closed here because this runs while a frame is being handled, and NIO fires
    /// `channelInactive` (and the handlers after it) from inside `close()`.
    /// - Parameter reason: counted in `proscenium_media_dropped_total`.
    func closeTCP(_ connection: ICETCPConnection, reason: MediaDropReason) {
        guard !connection.isClosing else { return }
        connection.isClosing = true
        connection.authenticationDeadline?.cancel()
        reason.count()
        logger.debug("ICE-TCP connection closed", metadata: ["remote": "\(connection.remote)", "reason": "\(reason.rawValue)"])
        let channel = connection.channel
        eventLoop.execute {
            channel.flush()
            channel.close(promise: nil)
        }
    }

    /// The connection's channel closed (either side, at any stage): its slots are given back
    /// and, if it was a peer's selected path, the peer goes silent until it nominates another
    /// path or its consent expires (RFC 7675).
    func connectionClosed(_ connection: ICETCPConnection) {
        guard tcpConnections.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return }
        connection.isClosing = true
        connection.authenticationDeadline?.cancel()
        guard connection.isAuthenticated else { return releaseUnauthenticated(connection) }
        // A peer already removed closed its connections itself: nothing to tell.
        guard let peer = connection.peer, !peer.isClosed else { return }
        peer.tcpConnections.removeAll { $0 === connection }
        if peer.selectedPath?.connection === connection {
            peer.selectedPath = nil
            logger.info("the selected ICE-TCP connection closed; the peer is silent until it nominates another path",
                        metadata: ["peer": "\(peer.id)", "remote": "\(connection.remote)"])
        }
    }
}
