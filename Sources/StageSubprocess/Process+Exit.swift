public import Foundation

extension Process {
    /// Whether the child has exited, whether or not Foundation has noticed yet.
    ///
    /// `isRunning` alone can stay true long after the exit: swift-corelibs-foundation learns of a
    /// child's exit when the last copy of a socket it shares with that child closes, and the
    /// socket is made without close-on-exec, so a child another thread spawns at the same moment
    /// can inherit a copy. Then `isRunning` stays true, and `waitUntilExit()` spins, until that
    /// other child exits too (a test run hung on it for half an hour). An exited child that
    /// nobody has reaped yet is a zombie: state `Z` in `/proc/PID/stat` (proc(5)).
    public var hasExited: Bool {
        guard isRunning else { return true }
        guard let line = try? String(contentsOfFile: "/proc/\(processIdentifier)/stat", encoding: .utf8) else { return true }
        return ProcStat(line)?.state == "Z"
    }

    /// The exit status (or the signal that ended it), once Foundation has reaped the child; nil
    /// before, even after `hasExited` (reading `terminationStatus` then would trap).
    public var reapedStatus: Int32? { isRunning ? nil : terminationStatus }

    /// Waits until the child exits (`hasExited`), polling, for at most `timeout`.
    /// - Returns: whether it exited.
    public func waitForExit(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !hasExited {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(Self.pollMilliseconds))
        }
        return true
    }

    /// `waitForExit(timeout:)` for callers that cannot suspend (a `deinit`): blocks the thread.
    public func waitForExitBlocking(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !hasExited {
            guard ContinuousClock.now < deadline else { return false }
            Thread.sleep(forTimeInterval: Double(Self.pollMilliseconds) / 1000)
        }
        return true
    }

    /// How often the waits look.
    private static let pollMilliseconds = 10
}
