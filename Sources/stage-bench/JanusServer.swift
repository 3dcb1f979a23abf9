import Foundation
import StageControl

/// Janus 1.1.2 (Debian `janus`) on loopback for the side-by-side media benchmark: HTTP
/// transport only, the VideoRoom plugin only, ICE-lite like stage-server, one room.
final class JanusServer: @unchecked Sendable {
    let directory: URL
    let httpPort: Int
    let room = 1234
    private var process: Process?

    var processIdentifier: Int32? { process?.isRunning == true ? process?.processIdentifier : nil }
    var apiURL: URL { URL(string: "http://127.0.0.1:\(httpPort)/janus")! }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("janus-bench-\(UUID().uuidString)")
        httpPort = try FreePort.tcp()
    }

    func start(publishers: Int) async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let lib = "/usr/lib/x86_64-linux-gnu/janus"
        let plugins = ["audiobridge", "duktape", "echotest", "lua", "nosip", "recordplay", "sip", "streaming", "textroom",
                       "videocall", "voicemail"].map { "libjanus_\($0).so" }.joined(separator: ",")
        let transports = ["mqtt", "nanomsg", "pfunix", "rabbitmq", "websockets"].map { "libjanus_\($0).so" }.joined(separator: ",")
        try """
            general: { configs_folder = "\(directory.path)", plugins_folder = "\(lib)/plugins",
                       transports_folder = "\(lib)/transports", events_folder = "\(lib)/events",
                       loggers_folder = "\(lib)/loggers", debug_level = 2, session_timeout = 120 }
            media: { rtp_port_range = "40000-60000" }
            nat: { ice_lite = true, ignore_mdns = true, nice_debug = false }
            plugins: { disable = "\(plugins)" }
            transports: { disable = "\(transports)" }
            events: { broadcast = false }
            """.write(to: directory.appendingPathComponent("janus.jcfg"), atomically: true, encoding: .utf8)
        try """
            general: { json = "compact", base_path = "/janus", http = true, port = \(httpPort), ip = "127.0.0.1", https = false }
            admin: { admin_http = false }
            """.write(to: directory.appendingPathComponent("janus.transport.http.jcfg"), atomically: true, encoding: .utf8)
        try """
            general: { }
            room-\(room): { description = "bench", publishers = \(publishers + 1), bitrate = 0, fir_freq = 0,
                            audiocodec = "opus", videocodec = "vp8", record = false }
            """.write(to: directory.appendingPathComponent("janus.plugin.videoroom.jcfg"), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/janus")
        process.arguments = ["-F", directory.path, "-C", directory.appendingPathComponent("janus.jcfg").path, "-o"]
        let log = try FileHandle(forWritingTo: { let url = directory.appendingPathComponent("janus.log")
            _ = FileManager.default.createFile(atPath: url.path, contents: nil); return url }())
        process.standardOutput = log
        process.standardError = log
        try process.run()
        self.process = process
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if (try? await JanusAPI(url: apiURL).info()) != nil { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BenchError("janus did not start:\n" + ((try? String(contentsOf: directory.appendingPathComponent("janus.log"), encoding: .utf8)) ?? "").suffix(2000))
    }

    /// SIGINT (Janus's own graceful stop), SIGKILL if it lingers past 5 s.
    func stop() {
        guard let process, process.isRunning else { return }
        process.interrupt()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
