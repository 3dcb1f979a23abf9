import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOPosix
import StageControl
import StageTransport

struct MediaBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media",
        abstract: "Forward synthetic SRTP streams through stage-server and through the floor relay, side by side.",
        discussion: """
            N publishers (WHIP) each send RATE packets/s of 1200 bytes; M subscribers (WHEP) each receive every \
            publisher. Real ICE, DTLS and SRTP on loopback. Prints forwarded packets/s, CPU seconds per million \
            forwarded packets (the forwarder's CPU only), end-to-end latency p50/p99 and loss, for stage-server and for \
            the floor (one libsrtp unprotect + protect and one UDP send per copy, no ICE/DTLS/routing).
            """)

    @Option(help: "Publishers.") var publishers = 4
    @Option(help: "Subscribers, each receiving every publisher.") var subscribers = 10
    @Option(help: "Packets per second per publisher.") var rate = 300
    @Option(help: "Seconds of load per run.") var seconds = 8
    @Option(parsing: .upToNextOption, help: ArgumentHelp(
        "stage-server's --media-workers, one run each in this order (e.g. --workers 1 2); none: one run with its default.",
        valueName: "n"))
    var workers: [Int] = []
    @Option(help: "Stages the publishers are spread over, in turn; a subscriber receives every publisher of its stage.")
    var stages = 1
    @Option(help: ArgumentHelp("stage-server's --worker-max-consumers: with more consumers on a stage, its later subscribers "
                               + "are served by another worker through a pipe, and each worker's share is printed.", valueName: "n"))
    var workerMaxConsumers: Int?
    @Flag(inversion: .prefixedNo, help: "Also run the load through Janus 1.1.2's VideoRoom (needs /usr/bin/janus).")
    var janus = true
    @Flag(help: .hidden) var janusOnly = false
    @Option(help: "Janus gathers no loopback candidates: the address in the benchmark's own network namespace it may be reached at (scripts/bench-media.sh sets it).")
    var janusAddress: String?

    func run() async throws {
        ProcessLimits.raiseOpenFileLimit()
        let clients = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let context = try DTLSContext(certificate: DTLSCertificate())
        if janus, janusOnly {
            progress("janus…")
            print(row("janus 1.1.2", try await measureJanus(context: context, group: clients)))
            return
        }
        var runs: [(name: String, result: Result)] = []
        for count in workers.isEmpty ? [nil] : workers.map(Optional.some) {
            progress("stage-server\(count.map { " with \($0) media worker\($0 == 1 ? "" : "s")" } ?? "")…")
            runs.append((count.map { "\($0) worker\($0 == 1 ? "" : "s")" } ?? "stage-server", try await measureSFU(context: context, group: clients, workers: count)))
        }
        let sfu = runs[0].result
        progress("floor relay…")
        let floor = try await measureFloor(group: clients)
        if janus { progress("janus…") }
        let janusResult = janus ? try await measureJanus(context: context, group: clients) : nil
        let offered = publishers * rate * subscribersPerPublisher
        var report = """
            media forwarding: \(publishers) publishers × \(rate) pkt/s × \(subscribersPerPublisher) subscribers each\(stages > 1 ? " (\(stages) stages)" : "") \
            = \(offered) forwarded pkt/s offered, 1200-byte packets, \(seconds) s, loopback

            """
        for run in runs {
            report += row(run.name, run.result) + "\n"
            if run.result.byPort.count > 1 {
                let total = Double(run.result.byPort.values.reduce(0) { $0 + $1.received })
                report += "    by the worker port subscribers were answered with: " + run.result.byPort.keys.sorted().map { port in
                    let group = run.result.byPort[port]!
                    return "\(port): \(String(format: "%.0f", Double(group.received) / total * 100)) % of the packets, "
                        + "p50 \(String(format: "%.0f", group.p50)) µs, p99 \(String(format: "%.0f", group.p99)) µs"
                }.joined(separator: "; ") + "\n"
            }
            if !run.result.workerShares.isEmpty {
                report += "    media worker threads' share of the server's CPU: "
                    + run.result.workerShares.map { "\($0.name) \(String(format: "%.0f", $0.share * 100)) %" }.joined(separator: ", ") + "\n"
            }
        }
        report += row("floor", floor) + "\n"
        if runs.count > 1 { report += Self.cpuComparison(runs) }
        if let janusResult { report += row("janus 1.1.2", janusResult) + "\n" }
        report += "  stage-server / floor CPU per packet: \(String(format: "%.2f", sfu.cpuPerMillion / floor.cpuPerMillion))×"
        if let janusResult {
            report += "; stage-server / janus: \(String(format: "%.2f", sfu.cpuPerMillion / janusResult.cpuPerMillion))×"
        }
        report += "; added latency vs floor (p50 difference): \(String(format: "%.0f", sfu.p50 - floor.p50)) µs"
        print(report)
        try await clients.shutdownGracefully()
    }

    /// CPU per packet of the last run's configuration over the first's: of the two runs, or,
    /// when `--workers` repeats them (`1 2 1 2 1 2`: alternating, so drift on a shared machine
    /// falls on both), of their medians, with each adjacent pair's ratio.
    static func cpuComparison(_ runs: [(name: String, result: Result)]) -> String {
        let first = runs[0].name, last = runs[runs.count - 1].name
        let cpu = { (name: String) in runs.filter { $0.name == name }.map(\.result.cpuPerMillion) }
        let (ofFirst, ofLast) = (cpu(first), cpu(last))
        guard ofFirst.count > 1 || ofLast.count > 1 else {
            return "  CPU per packet, \(last) / \(first): \(String(format: "%.2f", ofLast[0] / ofFirst[0]))×\n"
        }
        let pairs = zip(runs, runs.dropFirst()).filter { $0.0.name == first && $0.1.name == last }
            .map { String(format: "%.2f", $0.1.result.cpuPerMillion / $0.0.result.cpuPerMillion) }
        return "  CPU per packet, \(last) / \(first): \(String(format: "%.2f", median(ofLast) / median(ofFirst)))× "
            + "(medians of \(ofLast.count) and \(ofFirst.count) alternating runs, \(String(format: "%.2f", median(ofLast))) and "
            + "\(String(format: "%.2f", median(ofFirst))) CPU s / M pkt; each pair: \(pairs.joined(separator: ", ")))\n"
    }

    /// Every subscriber receives every publisher of its stage.
    var subscribersPerPublisher: Int { subscribers / max(stages, 1) }

    func progress(_ text: String) { FileHandle.standardError.write(Data("media bench: \(text)\n".utf8)) }

    struct Result {
        var forwardedPerSecond: Double
        var cpuPerMillion: Double
        var p50: Double
        var p99: Double
        var loss: Double
        /// The forwarder's CPU seconds over the run.
        var cpuSeconds: Double
        /// Packets received and latency p50/p99 (µs) by the media port the subscribers were
        /// answered with, that is by worker (stage-server only).
        var byPort: [Int: (received: Int, p50: Double, p99: Double)] = [:]
        /// Each media worker thread's share of the server's CPU over the run (stage-server only).
        var workerShares: [(name: String, share: Double)] = []
    }

    func row(_ name: String, _ r: Result) -> String {
        "  " + name.padding(toLength: 13, withPad: " ", startingAt: 0) +
            String(format: "%9.0f fwd pkt/s   %6.2f CPU s / M pkt   e2e p50 %6.0f µs  p99 %6.0f µs   loss %.3f%%",
                   r.forwardedPerSecond, r.cpuPerMillion, r.p50, r.p99, r.loss * 100)
    }

    /// The load through stage-server with `workers` media workers (nil: its default).
    func measureSFU(context: DTLSContext, group: MultiThreadedEventLoopGroup, workers: Int?) async throws -> Result {
        let server = try LocalStageServer(binary: LocalStageServer.defaultBinary,
                                          extraArguments: (workers.map { ["--media-workers", "\($0)"] } ?? [])
                                              + (workerMaxConsumers.map { ["--worker-max-consumers", "\($0)"] } ?? []))
        try await server.start()
        defer { server.stop() }
        guard let pid = server.processIdentifier else { throw BenchError("stage-server is not running") }
        let api = server.api
        var stageArns: [String] = []
        for index in 0..<max(stages, 1) { stageArns.append(try await api.createStage(name: "media-bench-\(index)").arn) }
        var senders: [ClientPeerConnection] = [], ssrcs: [UInt32] = [], publisherIds: [(stage: Int, id: String)] = []
        for index in 0..<publishers {
            let stage = index % stageArns.count
            let token = try await api.createParticipantToken(stageArn: stageArns[stage], capabilities: ["PUBLISH"])
            let peer = ClientPeerConnection(tracks: [.init(mid: "0", kind: .video, direction: .sendonly)], context: context, eventLoop: group.next())
            try await peer.open(host: "127.0.0.1")
            let answer = try await post(server.baseURL.appendingPathComponent("whip"), offer: peer.offer(), token: token.token ?? "")
            try await peer.connect(answer: answer)
            senders.append(peer); ssrcs.append(peer.tracks[0].ssrc); publisherIds.append((stage, token.participantId ?? ""))
        }
        let stats = ReceiveStats()
        var receivers: [ClientPeerConnection] = []
        for index in 0..<subscribers {
            let stage = index % stageArns.count
            let token = try await api.createParticipantToken(stageArn: stageArns[stage], capabilities: ["SUBSCRIBE"])
            for (publisherStage, publisherId) in publisherIds where publisherStage == stage {
                let peer = ClientPeerConnection(tracks: [.init(mid: "0", kind: .video, direction: .recvonly)], context: context, eventLoop: group.next())
                let port = PortBox()
                peer.onRTP = { stats.record($0, group: port.value) }
                try await peer.open(host: "127.0.0.1")
                let answer = try await post(server.baseURL.appendingPathComponent("whep/\(publisherId)"), offer: peer.offer(), token: token.token ?? "")
                port.value = Self.mediaPort(inAnswer: answer)
                try await peer.connect(answer: answer)
                receivers.append(peer)
            }
        }
        let threadsBefore = threadCPUSeconds(pid: pid, namePrefix: "media-w")
        var result = try await run(senders: senders, ssrcs: ssrcs, stats: stats) {
            processCPUSeconds(pid: pid)
        }
        result.byPort = stats.groupSnapshots().mapValues { group in
            (group.received, percentile(group.latenciesMicroseconds, 50), percentile(group.latenciesMicroseconds, 99))
        }
        let threadsAfter = threadCPUSeconds(pid: pid, namePrefix: "media-w")
        if result.cpuSeconds > 0 {
            result.workerShares = threadsAfter.keys.sorted().map { ($0, ((threadsAfter[$0] ?? 0) - (threadsBefore[$0] ?? 0)) / result.cpuSeconds) }
        }
        for peer in senders + receivers { await peer.close() }
        return result
    }

    func measureFloor(group: MultiThreadedEventLoopGroup) async throws -> Result {
        func randomKeys() -> SRTPKeyingMaterial {
            SRTPKeyingMaterial(profile: .aeadAes128Gcm, local: (0..<28).map { _ in .random(in: 0...255) }, remote: (0..<28).map { _ in .random(in: 0...255) })
        }
        let publisherKeys = randomKeys()
        let relay = try FloorRelay(publisherKeys: publisherKeys)
        let relayAddress = try await relay.start()
        let stats = ReceiveStats()
        var senders: [ClientPeerConnection] = [], ssrcs: [UInt32] = [], receivers: [ClientPeerConnection] = []
        var routes: [SocketAddress: [(session: SRTPSession, address: SocketAddress)]] = [:]
        for _ in 0..<publishers {
            let peer = ClientPeerConnection(tracks: [.init(mid: "0", kind: .video, direction: .sendonly)], context: try DTLSContext(certificate: DTLSCertificate()), eventLoop: group.next())
            try await peer.open(host: "127.0.0.1")
            try await peer.connectWithoutHandshake(to: relayAddress, keys: publisherKeys)
            senders.append(peer); ssrcs.append(peer.tracks[0].ssrc)
        }
        for _ in 0..<(subscribersPerPublisher * publishers) {
            let keys = randomKeys()
            let peer = ClientPeerConnection(tracks: [.init(mid: "0", kind: .video, direction: .recvonly)], context: try DTLSContext(certificate: DTLSCertificate()), eventLoop: group.next())
            peer.onRTP = { stats.record($0) }
            try await peer.open(host: "127.0.0.1")
            try await peer.connectWithoutHandshake(to: relayAddress, keys: keys)
            receivers.append(peer)
        }
        // Subscriber i × publisher j gets its own copy, as with the SFU's one consumer per subscription.
        for (index, sender) in senders.enumerated() {
            guard let from = sender.localAddress else { continue }
            routes[from] = try (0..<subscribersPerPublisher).map { s in
                let receiver = receivers[s * publishers + index]
                guard let keys = receiver.fixedKeys, let address = receiver.localAddress else { throw BenchError("floor: receiver not ready") }
                return (try SRTPSession(SRTPKeyingMaterial(profile: keys.profile, local: keys.remote, remote: keys.local)), address)
            }
        }
        let allRoutes = routes
        try await relay.group.next().submit { relay.routes = allRoutes }.get()
        let result = try await run(senders: senders, ssrcs: ssrcs, stats: stats) {
            (try? await relay.threadCPUSeconds()) ?? .nan
        }
        for peer in senders + receivers { await peer.close() }
        try await relay.group.shutdownGracefully()
        return result
    }

    /// Sends the load, measures the forwarder's CPU over it, and summarises what arrived.
    func run(senders: [ClientPeerConnection], ssrcs: [UInt32], stats: ReceiveStats, cpu: () async -> Double) async throws -> Result {
        try await Task.sleep(for: .milliseconds(300))
        stats.measuring = true
        let cpuBefore = await cpu()
        let sent = try await sendLoad(from: senders, ssrcs: ssrcs, rate: rate, duration: .seconds(seconds))
        try await Task.sleep(for: .milliseconds(300))   // let the last packets land
        stats.measuring = false
        let cpuUsed = await cpu() - cpuBefore
        let (received, latencies) = stats.snapshot()
        let expected = sent * subscribersPerPublisher
        return Result(forwardedPerSecond: Double(received) / Double(seconds), cpuPerMillion: cpuUsed / Double(max(received, 1)) * 1e6,
                      p50: percentile(latencies, 50), p99: percentile(latencies, 99),
                      loss: expected > 0 ? max(0, Double(expected - received) / Double(expected)) : .nan, cpuSeconds: cpuUsed)
    }

    /// The UDP port of the first host candidate in an SDP answer: the worker serving it.
    static func mediaPort(inAnswer answer: String) -> Int {
        for line in answer.split(whereSeparator: \.isNewline) where line.hasPrefix("a=candidate:") {
            let fields = line.split(separator: " ")
            if fields.count > 5, fields[2].lowercased() == "udp", let port = Int(fields[5]) { return port }
        }
        return 0
    }

    func post(_ url: URL, offer: String, token: String) async throws -> String {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(offer.utf8)
        request.setValue("application/sdp", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 201 else {
            throw BenchError("\(url.path): \((response as? HTTPURLResponse)?.statusCode ?? 0) \(String(decoding: data, as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The group a receiver's packets are counted in, set once its answer names its port.
final class PortBox: @unchecked Sendable {
    var value = 0
}
