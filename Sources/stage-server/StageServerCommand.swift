import ArgumentParser
import Foundation
import NIOCore
import Logging
import StageControl
import StageServer

@main
struct StageServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stage-server",
        abstract: "Proscenium stage server: IVS-compatible control plane, participant tokens and signaling.",
        discussion: """
            Control-plane credentials come from STAGE_ACCESS_KEY_ID and STAGE_SECRET_ACCESS_KEY; when unset, \
            a pair is generated on first start, stored in the data directory and printed.
            """)

    @Option(help: "HTTP port for the API, signaling WebSockets, /healthz and /metrics.")
    var httpPort = 8080
    @Option(help: ArgumentHelp("The first UDP port for WebRTC peer connections (ICE-lite, DTLS, SRTP), on IPv4 and IPv6: "
                               + "media worker n serves this port + n (open --media-workers ports from here).", valueName: "port"))
    var mediaPort = 7880
    @Option(help: ArgumentHelp("The first TCP port for ICE-TCP (RFC 6544 passive candidates, RFC 4571 framing), for clients whose "
                               + "UDP is blocked: media worker n serves this port + n; 0 turns it off. (default: 7881; if those "
                               + "ports are taken, ICE-TCP stays off with a warning)",
                               valueName: "port"))
    var mediaTcpPort: Int?
    @Option(help: ArgumentHelp("Media workers: threads, each with its own UDP and ICE-TCP port, serving the stages placed on it "
                               + "(a stage on one worker, placed by load). (default: the number of cores)", valueName: "n"))
    var mediaWorkers: Int?
    @Option(help: ArgumentHelp("Consumers (a subscriber's audio or video track) one media worker holds before a stage's new "
                               + "subscribers go to a router on another worker, to which the publishers they watch are piped "
                               + "from the stage's first. (default: \(ServerConfiguration.defaultWorkerMaxConsumers))", valueName: "n"))
    var workerMaxConsumers: Int?
    @Option(help: "Directory for the SQLite store, keys and credentials.")
    var dataDir = "./stage-data"
    @Option(help: "Base URL clients use to reach this server (default http://127.0.0.1:<http-port>).")
    var publicURL: String?
    @Option(help: ArgumentHelp("An IPv4 or IPv6 address announced in ICE candidates; repeat for several, most preferred first. "
                               + "Default: for a wildcard --host, every interface address (loopback included, IPv6 link-local "
                               + "left out, loopback last), the --public-url host first when it is given and is an IP address "
                               + "other than loopback; else the --host address.",
                               valueName: "ip"))
    var publicIP: [String] = []
    @Option(help: "Address to listen on; 0.0.0.0 or :: mean every address, IPv4 and IPv6 (HTTP on :: dual-stack).")
    var host = "0.0.0.0"
    @Option(help: "AWS region that appears in ARNs.")
    var region = "us-east-1"
    @Option(help: "Log format: text or json.")
    var logFormat = "text"
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"
    @Option(help: ArgumentHelp("PEM certificate chain: serve HTTP, WHIP/WHEP and signaling over TLS (with --tls-key); "
                               + "the default --public-url becomes https://127.0.0.1:<http-port>.",
                               valueName: "pem-file"))
    var tlsCert: String?
    @Option(help: ArgumentHelp("PEM private key of the --tls-cert certificate.", valueName: "pem-file"))
    var tlsKey: String?
    @Option(help: ArgumentHelp("A composition stops by itself this long after the last publisher left its stage, "
                               + "or this long after its start when nobody publishes (IVS: 60).",
                               valueName: "seconds"))
    var compositionIdleTimeout: Double = 60
    @Option(help: "Publishers a stage may have at once (IVS: 12); one more gets error 4090 stageAtCapacity.")
    var maxPublishersPerStage = 12
    @Option(help: ArgumentHelp("A stage session ends this long after its last participant left; who rejoins "
                               + "sooner continues it.", valueName: "seconds"))
    var sessionLinger: Double = 30
    @Flag(inversion: .prefixedNo,
          help: "Fit each subscriber's simulcast layers to its link, estimated from its receiver reports and REMB.")
    var downlinkAdaptation = true
    @Flag(inversion: .prefixedNo,
          help: "Tell SDK publishers which simulcast layers subscribers use, so they stop encoding the others (dynacast).")
    var dynacast = true
    @Flag(inversion: .prefixedNo,
          help: ArgumentHelp("Repair lost packets: NACK publishers for what was lost on the way in, answer subscribers' "
                             + "NACKs (on RTX where negotiated). Off only to measure what the repair is worth."))
    var lossRepair = true
    @Flag(inversion: .prefixedNo,
          help: ArgumentHelp("Pace each subscriber's video at 1.5× its downlink estimate, so a keyframe's burst does not "
                             + "overflow a narrow link. Off only to measure what pacing is worth."))
    var pacing = true
    @Option(help: ArgumentHelp("An HTTP connection idle this long is closed.", valueName: "seconds"))
    var httpIdleTimeout: Double = 30
    @Option(help: "Open HTTP and WebSocket connections at most (lowered to fit the open-file limit).")
    var maxHttpConnections = 10_000
    @Flag(help: .hidden)
    var exitWhenStdinCloses = false
    /// Tests: the ICE-TCP limits (see `ICETCPLimits`).
    @Option(help: .hidden)
    var iceTcpAuthTimeoutMs: Int?
    @Option(help: .hidden)
    var iceTcpMaxUnauthenticated: Int?
    @Option(help: .hidden)
    var iceTcpMaxUnauthenticatedPerSource: Int?
    @Option(help: .hidden)
    var iceTcpMaxPerPeer: Int?
    @Option(help: .hidden)
    var iceTcpUnselectedTimeoutMs: Int?

    func validate() throws {
        guard (1...65535).contains(httpPort) else { throw ValidationError("--http-port must be 1–65535") }
        if let mediaWorkers, !(1...ServerConfiguration.maximumMediaWorkers).contains(mediaWorkers) {
            throw ValidationError("--media-workers must be 1–\(ServerConfiguration.maximumMediaWorkers)")
        }
        if let workerMaxConsumers, workerMaxConsumers < 1 { throw ValidationError("--worker-max-consumers must be at least 1") }
        let workers = mediaWorkers ?? System.coreCount
        guard (1...65535).contains(mediaPort), mediaPort + workers - 1 <= 65535 else {
            throw ValidationError("--media-port must be 1–65535, and --media-port + --media-workers − 1 at most 65535")
        }
        if let mediaTcpPort, !(0...65535).contains(mediaTcpPort) || (mediaTcpPort > 0 && mediaTcpPort + workers - 1 > 65535) {
            throw ValidationError("--media-tcp-port must be 0–65535 (0 turns ICE-TCP off), and --media-tcp-port + --media-workers − 1 at most 65535")
        }
        for ip in publicIP {
            do { _ = try ServerConfiguration.validatePublicIP(ip) } catch { throw ValidationError(error.description) }
        }
        guard compositionIdleTimeout > 0, compositionIdleTimeout.isFinite else {
            throw ValidationError("--composition-idle-timeout must be a positive number of seconds")
        }
        guard httpIdleTimeout > 0, httpIdleTimeout.isFinite else { throw ValidationError("--http-idle-timeout must be a positive number of seconds") }
        guard maxHttpConnections >= 1 else { throw ValidationError("--max-http-connections must be at least 1") }
        guard (1...1000).contains(maxPublishersPerStage) else { throw ValidationError("--max-publishers-per-stage must be 1–1000") }
        guard (0...3600).contains(sessionLinger) else { throw ValidationError("--session-linger must be 0–3600 seconds") }
        guard ["text", "json"].contains(logFormat) else { throw ValidationError("--log-format must be text or json") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level: unknown level '\(logLevel)'") }
        if let publicURL, !(publicURL.hasPrefix("http://") || publicURL.hasPrefix("https://")) {
            throw ValidationError("--public-url must start with http:// or https://")
        }
        try validateTLS()
    }

    /// --tls-cert and --tls-key: both or neither, each a readable file.
    func validateTLS() throws {
        switch (tlsCert, tlsKey) {
        case (nil, nil): return
        case (.some, nil): throw ValidationError("--tls-cert needs --tls-key (the certificate's private key)")
        case (nil, .some): throw ValidationError("--tls-key needs --tls-cert (the certificate chain)")
        case (.some(let cert), .some(let key)):
            for (flag, path) in [("--tls-cert", cert), ("--tls-key", key)] where !FileManager.default.isReadableFile(atPath: path) {
                throw ValidationError("\(flag) \(path): no such readable file")
            }
        }
    }

    /// Runs the server with the TLS files, if given, added to `configuration`. A file that does not
    /// hold what its flag needs stops the server before it listens, with a message naming the flag.
    func serve(_ configuration: ServerConfiguration) async throws {
        var configuration = configuration
        if let tlsCert, let tlsKey { configuration.tls = TLSFiles(certificateChain: tlsCert, privateKey: tlsKey) }
        try await StageServerApp.run(configuration)
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        let json = logFormat == "json"
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler = json ? JSONLogHandler(label: label) : StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        if exitWhenStdinCloses { ParentWatch.exitWhenStdinCloses() }
        ProcessLimits.raiseOpenFileLimit()
        let environment = ProcessInfo.processInfo.environment
        var configuration = ServerConfiguration(
            host: host, httpPort: httpPort, mediaPort: mediaPort, mediaTCPPort: mediaTcpPort,
            dataDirectory: URL(fileURLWithPath: dataDir, isDirectory: true), publicURL: publicURL, publicIPs: publicIP, region: region,
            accessKeyId: environment["STAGE_ACCESS_KEY_ID"], secretAccessKey: environment["STAGE_SECRET_ACCESS_KEY"])
        configuration.compositionIdleTimeoutSeconds = compositionIdleTimeout
        if let mediaWorkers { configuration.mediaWorkers = mediaWorkers }
        if let workerMaxConsumers { configuration.workerMaxConsumers = workerMaxConsumers }
        configuration.maxPublishersPerStage = maxPublishersPerStage
        configuration.sessionLingerSeconds = sessionLinger
        configuration.downlinkAdaptation = downlinkAdaptation
        configuration.dynacast = dynacast
        configuration.lossRepair = lossRepair
        configuration.pacing = pacing
        configuration.httpIdleTimeoutSeconds = httpIdleTimeout
        configuration.maxHTTPConnections = maxHttpConnections
        if let iceTcpAuthTimeoutMs { configuration.iceTCPLimits.authenticationTimeout = .milliseconds(Int64(iceTcpAuthTimeoutMs)) }
        if let iceTcpMaxUnauthenticated { configuration.iceTCPLimits.maximumUnauthenticated = iceTcpMaxUnauthenticated }
        if let iceTcpMaxUnauthenticatedPerSource { configuration.iceTCPLimits.maximumUnauthenticatedPerSource = iceTcpMaxUnauthenticatedPerSource }
        if let iceTcpMaxPerPeer { configuration.iceTCPLimits.maximumPerPeer = max(iceTcpMaxPerPeer, 1) }
        if let iceTcpUnselectedTimeoutMs { configuration.iceTCPLimits.unselectedTimeout = .milliseconds(Int64(iceTcpUnselectedTimeoutMs)) }
        try await serve(configuration)
    }
}
