import ArgumentParser
import Foundation
import StageControl
import StageKit

struct SignalingBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signaling",
        abstract: "Join publishers and subscribe-only SDK clients to one stage; measure join time and event fan-out delay.",
        discussion: """
            Starts its own stage-server on loopback (or uses --server-bin). Reports join time p50/p99, and for each
            mute toggle and each publish (after an unpublish) the delay from the change to the LAST renderer callback
            it causes across all clients, p50/p99 over the trials. Reference, same run and sockets: the signaling
            ping round trip p50/p99 (no fan-out).
            """)

    @Option(help: "Publishing clients.") var publishers = 12
    @Option(help: "Subscribe-only clients.") var subscribers = 500
    @Option(help: "Mute toggles and publish changes measured (each); p99 needs about 100.") var trials = 100
    @Option(help: "Joins in flight at once.") var concurrency = 32
    @Option(help: "stage-server binary (default: beside this tool).") var serverBin: String?

    func run() async throws {
        ProcessLimits.raiseOpenFileLimit()
        let server = try LocalStageServer(binary: serverBin.map { URL(fileURLWithPath: $0) } ?? LocalStageServer.defaultBinary)
        try await server.start()
        defer { server.stop() }
        let report = try await SignalingBenchmark(api: server.api, publishers: publishers, subscribers: subscribers,
                                                  trials: trials, concurrency: concurrency).run()
        print(report)
    }
}
