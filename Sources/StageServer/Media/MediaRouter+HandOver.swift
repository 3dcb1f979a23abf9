import StageSFU

/// A publisher that publishes again (its media reconnects: a new ICE path, a restarted SDK)
/// replaces its connection without its subscribers noticing: the old connection keeps forwarding
/// until the new one connects (DTLS done), then its subscribers move to the new connection's
/// producers, track by track (`PublisherHandOver`), and it closes. If the new connection closes
/// before it connects, the one it was to replace closes too.
///
/// At most one connection is waiting to be replaced per participant: the one that carries media.
/// All on the router's event loop.
extension MediaRouter {
    /// What a new connection will replace once it connects, given the participant's current one.
    /// A current connection that never connected carries nothing: its subscribers (those who came
    /// while it waited) move to the new connection at once and it closes, handing on what it was
    /// itself to replace.
    func replacement(of current: PublisherConnection, by connection: PublisherConnection) -> PublisherConnection? {
        guard !current.peer.isConnected else { return current }
        let carrying = current.replacing
        current.replacing = nil
        current.handOver(to: connection)
        current.peer.close(reason: "replaced by a new publish connection before it connected")
        return carrying
    }

    /// The new connection connected: the one it replaces hands over its subscribers and closes.
    func completeReplacement(by connection: PublisherConnection) {
        guard let replaced = connection.replacing else { return }
        connection.replacing = nil
        replaced.handOver(to: connection)
        replaced.peer.close(reason: "replaced by a new publish connection")
    }

    /// The participant's current connection closed: if it never connected, the connection it was to
    /// replace closes with it (the publisher's reconnection failed).
    func abandonReplacement(by connection: PublisherConnection) {
        guard let replaced = connection.replacing else { return }
        connection.replacing = nil
        replaced.peer.close(reason: "its replacement closed before connecting")
    }

    /// A connection that is no longer the participant's current one closed. If it was still
    /// waiting to be replaced (it ended on its own first: consent lost, the client closed it),
    /// its subscribers go to the waiting successor now, rather than closing with it.
    func replacedConnectionClosed(_ connection: PublisherConnection) {
        guard let current = publishers[connection.participantId], current.replacing === connection else { return }
        current.replacing = nil
        connection.handOver(to: current)
    }
}
