import ArgumentParser
import StageKit

/// `--ice-server` and friends: STUN/TURN servers for networks where the server is not reachable
/// directly (the SDK tries every local interface over UDP and TCP first).
struct ICEOptions: ParsableArguments {
    @Option(name: .customLong("ice-server"),
            help: ArgumentHelp("A STUN or TURN server: stun:HOST[:PORT] or turn:HOST[:PORT][?transport=tcp] (repeatable).", valueName: "url"))
    var servers: [String] = []
    @Option(help: ArgumentHelp("Username for the TURN servers.", valueName: "name")) var iceUsername: String?
    @Option(help: ArgumentHelp("Credential (password) for the TURN servers.", valueName: "secret")) var iceCredential: String?
    @Option(help: "all: every path; relay: only through a TURN server.") var iceTransportPolicy: Policy = .all

    enum Policy: String, ExpressibleByArgument, CaseIterable { case all, relay }

    /// The SDK's configuration; a bad URL or missing credentials is a usage error naming the flag.
    func configuration() throws -> StageICEConfiguration {
        let parsed = try servers.map { url throws(ValidationError) in
            do throws(StageConfigurationError) {
                let isTURN = url.lowercased().hasPrefix("turn")
                return try StageICEConfiguration.Server(url: url, username: isTURN ? iceUsername : nil, credential: isTURN ? iceCredential : nil)
            } catch {
                throw ValidationError(error.field == "credential" ? "--ice-server \(url): needs --ice-username and --ice-credential"
                                                                  : "--ice-server: \(error.message)")
            }
        }
        if iceTransportPolicy == .relay, !parsed.contains(where: { $0.url.lowercased().hasPrefix("turn") }) {
            throw ValidationError("--ice-transport-policy relay needs a turn: --ice-server")
        }
        return StageICEConfiguration(servers: parsed, transportPolicy: iceTransportPolicy == .relay ? .relay : .all)
    }
}
