/// The answer to one `sdpOffer`, resolved by the signaling receive path on the main actor.
@MainActor
final class PendingAnswer {
    private var result: Result<String, any Error>?
    private var waiter: CheckedContinuation<String, any Error>?

    func resolve(_ result: Result<String, any Error>) {
        guard self.result == nil else { return }
        self.result = result
        waiter?.resume(with: result)
        waiter = nil
    }

    func value() async throws -> String {
        if let result { return try result.get() }
        return try await withCheckedThrowingContinuation { waiter = $0 }
    }
}
