import Foundation

extension StageServerApp {
    /// The runner of server-side compositions. For now a stand-in that fails every composition
    /// with "compositor not available"; the compositor supervisor replaces this body.
    /// - Parameters:
    ///   - configuration: the server's configuration (data directory, idle timeout…).
    ///   - board: where the runner reports composition and destination states.
    ///   - endpoints: the public URLs (playback URLs of channels).
    static func makeCompositionRunner(configuration: ServerConfiguration, board: CompositionBoard,
                                      endpoints: PublicEndpoints) -> any CompositionRunner {
        UnavailableCompositionRunner(board: board)
    }
}

/// Fails each composition as soon as it starts: there is no compositor in this build.
struct UnavailableCompositionRunner: CompositionRunner {
    let board: CompositionBoard

    func start(_ plan: CompositionPlan) async {
        await board.composition(plan.compositionId, didBecome: .failed, reason: "compositor not available")
    }

    func stop(compositionId: String) async {
        await board.composition(compositionId, didBecome: .stopped, reason: "stopped")
    }
}
