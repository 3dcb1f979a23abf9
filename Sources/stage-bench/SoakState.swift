import Foundation
import NIOCore
import StageControl
import StageTransport

/// The soak's clients and what it saw, driven from one task: connect, then a once-a-second
/// loop of churn, mutes and samples for the given minutes (bounded: it stops by itself).
final class SoakState {
    /// The server reaps a silent peer after this (RFC 7675), checked once a second.
    static let consentSeconds = Int(MediaEngine.consentTimeout.nanoseconds / 1_000_000_000)
    /// A vanished peer may outlive the consent timeout by this much (the sweep, a loaded machine).
    static let reapGraceSeconds = 5

    let server: LocalStageServer
    let api: ControlPlaneClient
    let options: SoakBench
    let stageArn: String
    let counters = SoakCounters()
    let connector: SoakConnector
    let publishers: [SoakPublisher]
    let sender: SoakSender
    /// Live subscribers, oldest first.
    var subscribers: [SoakSubscriber] = []
    private var joined = 0
    /// When subscribers vanished (on the clock: a loop that fell behind catches up faster than
    /// real time, so the load's step numbers are not seconds of the server's consent timer).
    var vanishes: [ContinuousClock.Instant] = []
    /// Churn steps that could not finish.
    var churnFailures: [String] = []
    var samples: [SoakSample] = []
    /// Set when the server process is found dead during the load.
    var crashed: String?
    /// The longest a vanished subscriber's peers stayed on the server, in seconds (estimated
    /// from the once-a-second samples, oldest vanish reaped first).
    var longestReap = 0
    /// Samples where the server held more peers than live clients plus those vanished within
    /// the consent timeout and grace, or fewer than the live clients.
    var peerViolations: [String] = []

    init(server: LocalStageServer, context: DTLSContext, group: any EventLoopGroup, options: SoakBench) async throws {
        let eventLoop = group.next()
        self.server = server
        self.options = options
        api = server.api
        stageArn = try await api.createStage(name: "soak").arn
        connector = SoakConnector(baseURL: server.baseURL, context: context, eventLoop: eventLoop, group: group, counters: counters)
        var publishers: [SoakPublisher] = []
        for index in 0..<options.publishers {
            let token = try await api.createParticipantToken(stageArn: stageArn, userId: "publisher-\(index)", capabilities: ["PUBLISH"])
            publishers.append(SoakPublisher(index: index, token: token.token ?? "", participantId: token.participantId ?? ""))
        }
        self.publishers = publishers
        sender = SoakSender(eventLoop: eventLoop, publishers: publishers, rate: options.rate)
    }

    var publisherIds: [String] { publishers.map(\.participantId) }
    var livePeers: Int { publishers.count + subscribers.count * publishers.count }

    func connectAll() async throws {
        let connector = connector
        try await forEachConcurrently(publishers, limit: 4) { try await connector.publish($0) }
        sender.start()
        var fresh: [SoakSubscriber] = []
        for _ in 0..<options.subscribers { fresh.append(try await newSubscriber()) }
        let ids = publisherIds
        try await forEachConcurrently(fresh, limit: 2) { try await connector.subscribe($0, to: ids) }
        subscribers = fresh
    }

    /// A subscriber with a new token, on the next layer in turn (q, h, f, q…).
    func newSubscriber() async throws -> SoakSubscriber {
        let token = try await api.createParticipantToken(stageArn: stageArn, userId: "subscriber-\(joined)", capabilities: ["SUBSCRIBE"])
        defer { joined += 1 }
        return SoakSubscriber(token: token.token ?? "", layer: SoakPacket.rids[joined % SoakPacket.rids.count])
    }

    /// The load: `minutes × 60` steps, one a second on the clock (a slow step is caught up, not skipped).
    func runLoad() async {
        let start = ContinuousClock.now
        var muted: Int?
        for second in 1...(options.minutes * 60) {
            try? await Task.sleep(until: start + .seconds(second), clock: .continuous)
            if second % SoakBench.muteEvery == 0 {
                if let muted { await sender.setMuted(muted, false) }
                let next = (second / SoakBench.muteEvery) % publishers.count
                await sender.setMuted(next, true)
                muted = next
            }
            await churn(second: second)
            guard let sample = await sample(second: second) else {
                crashed = "stage-server exited at second \(second); its whole log: \(keepServerLog())\n\(server.logTail())"
                break
            }
            samples.append(sample)
            checkPeers(sample)
            if second % 60 == 0 { SoakReport.emit(SoakReport.row(samples: samples, minute: second / 60)) }
        }
        if let muted { await sender.setMuted(muted, false) }
    }

    /// The oldest subscriber leaves (or vanishes, one time in ten) and a new one joins.
    func churn(second: Int) async {
        let leaving = subscribers.removeFirst()
        if second % SoakBench.vanishEvery == 0 {
            await connector.vanish(leaving)
            vanishes.append(.now)
        } else {
            await connector.leave(leaving)
        }
        do {
            let joining = try await newSubscriber()
            try await connector.subscribe(joining, to: publisherIds)
            subscribers.append(joining)
        } catch {
            churnFailures.append("second \(second): \(error)")
        }
    }

    func sample(second: Int) async -> SoakSample? {
        guard let pid = server.processIdentifier else { return nil }
        let metrics = ServerProbe.Metrics((try? await server.metrics()) ?? "")
        let totals = counters.snapshot()
        return SoakSample(second: second, at: .now, rssMiB: ServerProbe.rssMiB(pid: pid), fds: ServerProbe.openFiles(pid: pid),
                          peers: Int(metrics.values["proscenium_media_peers"] ?? -1),
                          consumers: Int(metrics.values["proscenium_media_consumers"] ?? -1),
                          livePeers: livePeers, liveConsumers: subscribers.count * publishers.count,
                          received: totals.received, lost: totals.lost, sent: await sender.sentCount(),
                          drops: metrics.drops, forwarded: metrics.forwarded)
    }

    /// Vanished peers must be gone within the consent timeout (+ grace); live ones must stay.
    func checkPeers(_ sample: SoakSample) {
        let window = Self.consentSeconds + Self.reapGraceSeconds
        let pending = vanishes.filter { sample.at - $0 < .seconds(window) }.count
        let perSubscriber = publishers.count
        if sample.ghostPeers > pending * perSubscriber || sample.ghostPeers < 0 {
            peerViolations.append("second \(sample.second): server \(sample.peers) peers, live \(sample.livePeers), vanished within \(window) s: \(pending)")
        }
        // The oldest vanish still on the server: with k subscribers' peers left over, the k newest vanishes.
        let left = (max(0, sample.ghostPeers) + perSubscriber - 1) / perSubscriber
        let happened = vanishes.filter { $0 <= sample.at }
        if left > 0, left <= happened.count {
            longestReap = max(longestReap, Int(((sample.at - happened[happened.count - left]).milliseconds / 1000).rounded()))
        }
    }

    /// Copies the server's log out of the directory `LocalStageServer` deletes; returns where.
    func keepServerLog() -> String {
        let kept = FileManager.default.temporaryDirectory.appendingPathComponent("soak-server-\(UUID().uuidString.prefix(8)).log")
        return (try? FileManager.default.copyItem(at: server.logFile, to: kept)) != nil ? kept.path : "(could not copy \(server.logFile.path))"
    }

    func disconnectAll() async {
        for subscriber in subscribers { await connector.leave(subscriber) }
        for publisher in publishers {
            if let resource = publisher.resource { await connector.delete(resource, token: publisher.token) }
            await publisher.peer?.close()
        }
    }
}
