import StageSFU

/// A publisher that publishes again (its media reconnects: a new ICE path, a restarted SDK)
/// replaces its session without its subscribers noticing: the old session keeps forwarding
/// until the new one connects (DTLS done), then its subscribers move to the new session's
/// producers, track by track (`PublisherHandOver`), and it closes. If the new session closes
/// before it connects, the one it was to replace closes too.
///
/// At most one session is waiting to be replaced per participant: the one that carries media.
/// All on the media engine's event loop.
extension MediaService {
    /// What a new session will replace once it connects, given the participant's current one.
    /// A current session that never connected carries nothing: its subscribers (those who came
    /// while it waited) move to the new session at once and it closes, handing on what it was
    /// itself to replace.
    func replacement(of current: PublisherSession, by session: PublisherSession) -> PublisherSession? {
        guard !current.peer.isConnected else { return current }
        let carrying = current.replacing
        current.replacing = nil
        current.handOver(to: session)
        current.peer.close(reason: "replaced by a new publish session before it connected")
        return carrying
    }

    /// The new session connected: the one it replaces hands over its subscribers and closes.
    func completeReplacement(by session: PublisherSession) {
        guard let replaced = session.replacing else { return }
        session.replacing = nil
        replaced.handOver(to: session)
        replaced.peer.close(reason: "replaced by a new publish session")
    }

    /// The participant's current session closed: if it never connected, the session it was to
    /// replace closes with it (the publisher's reconnection failed).
    func abandonReplacement(by session: PublisherSession) {
        guard let replaced = session.replacing else { return }
        session.replacing = nil
        replaced.peer.close(reason: "its replacement closed before connecting")
    }

    /// A session that is no longer the participant's current one closed. If it was still
    /// waiting to be replaced (it ended on its own first: consent lost, the client closed it),
    /// its subscribers go to the waiting successor now, rather than closing with it.
    func replacedSessionClosed(_ session: PublisherSession) {
        guard let current = publishers[session.participantId], current.replacing === session else { return }
        current.replacing = nil
        session.handOver(to: current)
    }
}
