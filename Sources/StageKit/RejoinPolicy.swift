/// StageKit's reconnection rules. When the signaling socket of a joined session is lost (server
/// restart, network) and the app did not leave, the stage joins again with the same token: an
/// attempt a second after the loss or the last failure, each waiting 5 s for the server, 30 at
/// most; a refusal (by the server, of the token) ends it at once, as another attempt would be
/// refused too.
struct RejoinPolicy {
    enum Phase: Equatable {
        /// Joined, not joined yet, left, or given up: nothing to rejoin.
        case idle
        case rejoining(failedAttempts: Int)
    }

    /// What a rejoining stage does next.
    enum Step: Equatable {
        /// Wait `delay`, then join, waiting at most `timeout` for the server.
        case attempt(after: Duration, timeout: Duration)
        /// Stop rejoining; the stage stays disconnected with `error`.
        case giveUp(StageError)
    }

    static let maxAttempts = 30
    static let delay = Duration.seconds(1)
    static let joinTimeout = Duration.seconds(5)

    private(set) var phase = Phase.idle

    var isRejoining: Bool { phase != .idle }

    /// The signaling socket closed: rejoining starts if a joined session was lost, not left.
    mutating func socketClosed(wasJoined: Bool, leaving: Bool) {
        guard wasJoined, !leaving else { return }
        phase = .rejoining(failedAttempts: 0)
    }

    /// The step after `failure` of the previous attempt, or the first step when nil; nil when
    /// not rejoining.
    mutating func next(after failure: (any Error)?) -> Step? {
        guard case .rejoining(let failed) = phase else { return nil }
        guard let failure else { return .attempt(after: Self.delay, timeout: Self.joinTimeout) }
        if let error = failure as? StageError, Self.isRefusal(error.code) {
            phase = .idle
            return .giveUp(error)
        }
        guard failed + 1 < Self.maxAttempts else {
            phase = .idle
            return .giveUp(StageError(code: .connectionFailed, message: "could not join again in 30 s"))
        }
        phase = .rejoining(failedAttempts: failed + 1)
        return .attempt(after: Self.delay, timeout: Self.joinTimeout)
    }

    /// Joined again, or left: nothing to rejoin.
    mutating func stop() {
        phase = .idle
    }

    /// Joining again will not help: the server refused the join or ended the session, or the token is bad.
    private static func isRefusal(_ code: StageError.Code) -> Bool {
        switch code {
        case .server, .disconnected, .invalidToken: true
        case .connectionFailed, .timedOut, .notJoined: false
        }
    }
}
