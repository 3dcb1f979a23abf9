import Foundation

/// Debian's coturn (`/usr/bin/turnserver`) started for one test on 127.0.0.1 with long-term
/// credentials alice:secret in realm proscenium.test, loopback peers allowed, no TLS, no CLI.
/// ``stop()`` (also in `deinit`) kills it; its log is kept for failure messages.
final class CoturnProcess: @unchecked Sendable {
    static let binary = "/usr/bin/turnserver"
    static let username = "alice"
    static let password = "secret"
    static let realm = "proscenium.test"

    let port: UInt16
    private let process = Process()
    private let output = Pipe()
    private let logLock = NSLock()
    private var logData = Data()

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts coturn on `port`, relaying on 127.0.0.1 ports `relayPorts`.
    init(port: UInt16, relayPorts: ClosedRange<UInt16>) throws {
        self.port = port
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw Failure(description: "\(Self.binary) is missing: install coturn (scripts/setup.sh does)")
        }
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = [
            "-n", "--listening-ip=127.0.0.1", "--relay-ip=127.0.0.1", "--listening-port=\(port)",
            "--lt-cred-mech", "--user=\(Self.username):\(Self.password)", "--realm=\(Self.realm)",
            "--no-tls", "--no-dtls", "--no-cli", "--allow-loopback-peers",
            "--min-port=\(relayPorts.lowerBound)", "--max-port=\(relayPorts.upperBound)",
            "--log-file=stdout", "--simple-log", "--no-stun-backward-compatibility",
        ]
        process.standardOutput = output
        process.standardError = output
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.logLock.lock()
            self.logData.append(data)
            self.logLock.unlock()
        }
        do {
            try process.run()
        } catch {
            throw Failure(description: "cannot start \(Self.binary): \(error)")
        }
    }

    deinit { stop() }

    var isRunning: Bool { process.isRunning }

    /// What coturn printed so far.
    var log: String {
        logLock.lock()
        defer { logLock.unlock() }
        return String(decoding: logData, as: UTF8.self)
    }

    /// SIGKILL, not SIGTERM: a child started from the test process inherits the signal mask of
    /// the thread that spawned it, where libdispatch blocks SIGTERM, and coturn never unblocks it
    /// (a SIGTERM stays pending and `waitUntilExit` would wait forever).
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        output.fileHandleForReading.readabilityHandler = nil
    }
}
