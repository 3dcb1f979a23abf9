public import Foundation
import StageSubprocess
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real `stage-server` process on loopback with its own data directory, for tests and the
/// benchmark. It exits when this object goes away, or when the process that started it dies.
public final class LocalStageServer: @unchecked Sendable {
    public static let accessKeyId = "AKIDLOCALSERVER"
    public static let secretAccessKey = "local-server-secret"

    public let port: Int
    /// `--host`: loopback unless a test asks for a wildcard (IPv4 and IPv6).
    public let host: String
    /// The UDP media port and the ICE-TCP port, chosen free at each start.
    public private(set) var mediaPort = 0
    public private(set) var mediaTCPPort = 0
    /// More flags for the process (e.g. the hidden ICE-TCP limits).
    public let extraArguments: [String]
    public let dataDirectory: URL
    public let logFile: URL
    public let binary: URL
    private var process: Process?
    /// The server's stdin: it exits when this closes, even if the test process crashes.
    private var lifeline: Pipe?

    /// The running server's process id, for CPU accounting.
    public var processIdentifier: Int32? { process.flatMap { $0.hasExited ? nil : $0.processIdentifier } }

    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    public var api: ControlPlaneClient {
        ControlPlaneClient(endpoint: baseURL, accessKeyId: Self.accessKeyId, secretAccessKey: Self.secretAccessKey)
    }

    /// The `stage-server` built beside the running executable (test bundle or tool), or `STAGE_SERVER_BIN`.
    public static var defaultBinary: URL {
        if let path = ProcessInfo.processInfo.environment["STAGE_SERVER_BIN"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("stage-server")
    }

    public init(binary: URL = LocalStageServer.defaultBinary, dataDirectory: URL? = nil, host: String = "127.0.0.1",
                extraArguments: [String] = []) throws {
        self.binary = binary
        self.host = host
        self.extraArguments = extraArguments
        port = try FreePort.tcp()
        self.dataDirectory = dataDirectory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("proscenium-test-\(UUID().uuidString)", isDirectory: true)
        logFile = self.dataDirectory.appendingPathExtension("log")
    }

    /// Starts the process and waits for `/healthz`.
    /// - Parameter keepingPorts: reuse the media ports of the previous start (a restart after a
    ///   crash, so clients find the server where it was); new free ones otherwise.
    public func start(keepingPorts: Bool = false) async throws {
        // A port picked free can be taken before the server binds it (tests running beside this
        // one open connections from the same ephemeral range): then try again, with new media
        // ports unless they must be kept; the HTTP port stays, clients hold its URL.
        for attempt in 1... {
            do {
                return try await launch(newMediaPorts: !keepingPorts || mediaPort == 0)
            } catch ServerError.exited(let log) where log.contains("Address already in use") && attempt < 4 {
                try await Task.sleep(for: .milliseconds(250 * attempt))
            }
        }
    }

    private func launch(newMediaPorts: Bool) async throws {
        let process = Process()
        process.executableURL = binary
        if newMediaPorts {
            mediaPort = try FreePort.udp()
            repeat { mediaTCPPort = try FreePort.tcp() } while mediaTCPPort == port
        }
        process.arguments = ["--http-port", "\(port)", "--data-dir", dataDirectory.path, "--host", host,
                             "--media-port", "\(mediaPort)", "--media-tcp-port", "\(mediaTCPPort)",
                             "--log-level", "notice", "--exit-when-stdin-closes"] + extraArguments
        var environment = ProcessInfo.processInfo.environment
        environment["STAGE_ACCESS_KEY_ID"] = Self.accessKeyId
        environment["STAGE_SECRET_ACCESS_KEY"] = Self.secretAccessKey
        process.environment = environment
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let log = try FileHandle(forWritingTo: logFile)
        try log.seekToEnd()
        process.standardOutput = log
        process.standardError = log
        let lifeline = Pipe()
        process.standardInput = lifeline
        self.lifeline = lifeline
        try process.run()
        self.process = process
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            guard !process.hasExited else { throw ServerError.exited(logTail()) }
            if await healthy() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ServerError.notReady(logTail())
    }

    /// SIGTERM, then wait for the process to exit (SIGKILL after `stopTimeout`).
    public func stop() {
        guard let process, !process.hasExited else { return }
        process.terminate()
        if !process.waitForExitBlocking(timeout: Self.stopTimeout) { kill() }
    }

    /// SIGKILL, as a crash or the OOM killer would: no shutdown code runs. Waits for the exit.
    public func kill() {
        guard let process, !process.hasExited else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        _ = process.waitForExitBlocking(timeout: Self.stopTimeout)
    }

    /// How long `stop()` waits for a clean exit, and `kill()` for the end.
    private static let stopTimeout: Duration = .seconds(10)

    public func restart() async throws {
        stop()
        try await start()
    }

    public func healthy() async -> Bool {
        guard let (_, response) = try? await URLSession.shared.data(from: baseURL.appendingPathComponent("healthz")) else { return false }
        return (response as? HTTPURLResponse)?.statusCode == 200
    }

    public func metrics() async throws -> String {
        let (data, _) = try await URLSession.shared.data(from: baseURL.appendingPathComponent("metrics"))
        return String(decoding: data, as: UTF8.self)
    }

    public func logTail() -> String {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return String(text.suffix(3000))
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: dataDirectory)
        try? FileManager.default.removeItem(at: logFile)
    }

    public enum ServerError: Error, CustomStringConvertible {
        case exited(String)
        case notReady(String)
        public var description: String {
            switch self {
            case .exited(let log): "stage-server exited during start:\n\(log)"
            case .notReady(let log): "stage-server not healthy after 30 s:\n\(log)"
            }
        }
    }
}

/// Ports the kernel hands out for binding to 127.0.0.1:0.
public enum FreePort {
    public static func tcp() throws -> Int { try bind(type: Int32(SOCK_STREAM.rawValue)) }
    public static func udp() throws -> Int { try bind(type: Int32(SOCK_DGRAM.rawValue)) }

    private static func bind(type: Int32) throws -> Int {
        let fd = socket(AF_INET, type, 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                Glibc.bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
