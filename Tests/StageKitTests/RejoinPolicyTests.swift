import StageProtocol
import Testing
@testable import StageKit

/// Table tests of `RejoinPolicy`: when a lost session is joined again, how often, and when the
/// stage gives up.
@Suite struct RejoinPolicyTests {
    static let attempt = RejoinPolicy.Step.attempt(after: .seconds(1), timeout: .seconds(5))
    static let outOfTime = RejoinPolicy.Step.giveUp(StageError(code: .connectionFailed, message: "could not join again in 30 s"))

    /// A socket closing in some situation, and whether rejoining starts.
    struct Closing: Sendable, CustomTestStringConvertible {
        let name: String
        let wasJoined: Bool
        let leaving: Bool
        let rejoins: Bool
        var testDescription: String { name }
    }

    static let closings: [Closing] = [
        Closing(name: "a joined session lost starts rejoining", wasJoined: true, leaving: false, rejoins: true),
        Closing(name: "a joined session the app leaves does not", wasJoined: true, leaving: true, rejoins: false),
        Closing(name: "a socket lost while joining does not (the join fails instead)", wasJoined: false, leaving: false, rejoins: false),
        Closing(name: "a socket closed by leaving before joined does not", wasJoined: false, leaving: true, rejoins: false),
    ]

    @Test(arguments: closings)
    func socketClosed(_ row: Closing) {
        var policy = RejoinPolicy()
        policy.socketClosed(wasJoined: row.wasJoined, leaving: row.leaving)
        #expect(policy.isRejoining == row.rejoins)
        #expect(policy.phase == (row.rejoins ? .rejoining(failedAttempts: 0) : .idle))
    }

    /// After a loss: the failures of successive attempts (nil: the first step), the steps they
    /// give, and the phase at the end.
    struct Run: Sendable, CustomTestStringConvertible {
        let name: String
        let failures: [StageError?]
        let steps: [RejoinPolicy.Step?]
        let phase: RejoinPolicy.Phase
        var testDescription: String { name }
    }

    static func error(_ code: StageError.Code) -> StageError { StageError(code: code, message: "\(code)") }

    static let runs: [Run] = [
        Run(name: "the first attempt comes after 1 s and waits 5 s", failures: [nil], steps: [attempt],
            phase: .rejoining(failedAttempts: 0)),
        Run(name: "an attempt that timed out is tried again", failures: [nil, error(.timedOut)], steps: [attempt, attempt],
            phase: .rejoining(failedAttempts: 1)),
        Run(name: "an unreachable server is tried again", failures: [nil, error(.connectionFailed), error(.connectionFailed)],
            steps: [attempt, attempt, attempt], phase: .rejoining(failedAttempts: 2)),
        Run(name: "a join cut short by the stage is tried again", failures: [nil, error(.notJoined)], steps: [attempt, attempt],
            phase: .rejoining(failedAttempts: 1)),
        Run(name: "a refused token gives up at once", failures: [nil, error(.server(.tokenExpired))],
            steps: [attempt, .giveUp(error(.server(.tokenExpired)))], phase: .idle),
        Run(name: "a revoked participant gives up at once", failures: [nil, error(.server(.participantRevoked))],
            steps: [attempt, .giveUp(error(.server(.participantRevoked)))], phase: .idle),
        Run(name: "a disconnect by the server gives up at once", failures: [nil, error(.disconnected(.stageDeleted))],
            steps: [attempt, .giveUp(error(.disconnected(.stageDeleted)))], phase: .idle),
        Run(name: "an invalid token gives up at once", failures: [nil, error(.invalidToken)],
            steps: [attempt, .giveUp(error(.invalidToken))], phase: .idle),
        Run(name: "a refusal after retries gives up with the refusal", failures: [nil, error(.timedOut), error(.server(.stageNotFound))],
            steps: [attempt, attempt, .giveUp(error(.server(.stageNotFound)))], phase: .idle),
        Run(name: "29 failures leave a 30th attempt", failures: [nil] + Array(repeating: error(.timedOut), count: 29),
            steps: Array(repeating: attempt, count: 30), phase: .rejoining(failedAttempts: 29)),
        Run(name: "the 30th failure gives up: could not join again in 30 s",
            failures: [nil] + Array(repeating: error(.connectionFailed), count: 30),
            steps: Array(repeating: attempt, count: 30) + [outOfTime], phase: .idle),
        Run(name: "a refusal as the 30th failure gives up with the refusal",
            failures: [nil] + Array(repeating: error(.timedOut), count: 29) + [error(.server(.tokenExpired))],
            steps: Array(repeating: attempt, count: 30) + [.giveUp(error(.server(.tokenExpired)))], phase: .idle),
        Run(name: "after giving up there is no next step",
            failures: [nil, error(.invalidToken), error(.timedOut)], steps: [attempt, .giveUp(error(.invalidToken)), nil], phase: .idle),
    ]

    @Test(arguments: runs)
    func steps(_ run: Run) {
        var policy = RejoinPolicy()
        policy.socketClosed(wasJoined: true, leaving: false)
        let steps = run.failures.map { policy.next(after: $0) }
        #expect(steps == run.steps)
        #expect(policy.phase == run.phase)
    }

    @Test("a failure that is not a StageError is tried again")
    func otherErrorsAreRetried() {
        struct Unreachable: Error {}
        var policy = RejoinPolicy()
        policy.socketClosed(wasJoined: true, leaving: false)
        #expect(policy.next(after: nil) == Self.attempt)
        #expect(policy.next(after: Unreachable()) == Self.attempt)
        #expect(policy.phase == .rejoining(failedAttempts: 1))
    }

    @Test("joined again or left: not rejoining, no next step; a later loss starts again from no failure")
    func stop() {
        var policy = RejoinPolicy()
        #expect(policy.next(after: nil) == nil)
        policy.socketClosed(wasJoined: true, leaving: false)
        _ = policy.next(after: nil)
        _ = policy.next(after: Self.error(.timedOut))
        policy.stop()
        #expect(!policy.isRejoining)
        #expect(policy.next(after: Self.error(.timedOut)) == nil)
        policy.socketClosed(wasJoined: true, leaving: false)
        #expect(policy.phase == .rejoining(failedAttempts: 0))
    }
}
