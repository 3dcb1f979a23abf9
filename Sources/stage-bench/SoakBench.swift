import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import StageControl
import StageTransport

/// `stage-bench soak` (issue 11): a long run of simulcast publishers and churning subscribers
/// on one stage, then a SIGKILL of the server mid-load and a restart on the same data.
struct SoakBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Soak and chaos: simulcast publishers and churning subscribers for N minutes, then SIGKILL and restart the server.",
        discussion: """
            P publishers (WHIP, three VP8 simulcast layers of synthetic RTP) and S subscribers (WHEP, one peer \
            connection per publisher, each subscriber on one layer) on one stage, real ICE/DTLS/SRTP on loopback. \
            Every second one subscriber leaves (DELETE) and a new one joins; one leave in ten is a vanish (sockets \
            dropped, no DELETE, no close_notify); every 10 s the next publisher mutes (stops sending) and the previous \
            unmutes. Prints per minute: server RSS, open fds, peers, consumers, packets forwarded (received by \
            subscribers), loss, drops by reason. Then, with the load running, control-plane writes, SIGKILL, \
            PRAGMA integrity_check, restart on the same data dir and ports, every acknowledged write checked, and \
            the time until every client is back. Exits nonzero on FAIL.
            """)

    @Option(help: "Minutes of load before the kill.") var minutes = 30
    @Option(help: "Simulcast publishers.") var publishers = 12
    @Option(help: "Subscribers, each receiving every publisher.") var subscribers = 50
    @Option(help: "Packets per second of a publisher's top layer (h sends half, q a quarter).") var rate = 60
    @Option(help: "Warm-up minutes before RSS and fds must stay flat.") var warmup = 2
    @Option(help: "Allowed loss in percent of the packets subscribers should have received (outside injected events).")
    var maxLoss = 0.1
    @Flag(inversion: .prefixedNo, help: "Kill the server with SIGKILL at the end and restart it.") var restart = true

    /// One subscriber leave in this many is a vanish.
    static let vanishEvery = 10
    /// Seconds between mute changes.
    static let muteEvery = 10

    func validate() throws {
        guard minutes >= 1, publishers >= 1, subscribers >= 2, rate >= 4, warmup >= 0, warmup < minutes else {
            throw ValidationError("need minutes ≥ 1, warm-up < minutes, publishers ≥ 1, subscribers ≥ 2, rate ≥ 4")
        }
    }

    func run() async throws {
        ProcessLimits.raiseOpenFileLimit()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let server = try LocalStageServer(binary: LocalStageServer.defaultBinary)
        try await server.start()
        let state = try await SoakState(server: server, context: DTLSContext(certificate: DTLSCertificate()),
                                        group: group, options: self)
        progress("connecting \(publishers) publishers and \(subscribers) subscribers…")
        try await state.connectAll()
        progress("load for \(minutes) min (consent timeout \(SoakState.consentSeconds) s)…")
        SoakReport.emit(SoakReport.header(self))
        await state.runLoad()
        var verdict = SoakVerdict(options: self, state: state)
        if restart, state.crashed == nil {
            progress("SIGKILL and restart…")
            let result = await SoakRestart(state: state).run()
            SoakReport.emit(result.report)
            verdict.add(restart: result)
        }
        await state.sender.stop()
        await state.disconnectAll()
        SoakReport.emit(verdict.report)
        server.stop()
        // The clients' event loop is left to the process exit: shutting it down here makes the
        // timers of the last connections (ClientPeerConnection's connect timeout lives 10 s)
        // log "Cannot schedule tasks on an EventLoop that has already shut down".
        _ = group
        if !verdict.passed { throw ExitCode.failure }
    }

    func progress(_ text: String) { FileHandle.standardError.write(Data("soak: \(text)\n".utf8)) }
}

/// Runs `body` over `items` with at most `limit` at a time.
func forEachConcurrently<T: Sendable>(_ items: [T], limit: Int, _ body: @escaping @Sendable (T) async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        var next = 0
        while next < min(limit, items.count) {
            let item = items[next]
            group.addTask { try await body(item) }
            next += 1
        }
        while try await group.next() != nil, next < items.count {
            let item = items[next]
            group.addTask { try await body(item) }
            next += 1
        }
        try await group.waitForAll()
    }
}
