import Foundation
import StageControl
import StageKit

/// The signaling benchmark's clients and measurements, all on the main actor like an app's.
@MainActor
final class SignalingBenchmark {
    let api: ControlPlaneClient
    let publishers: Int
    let subscribers: Int
    let trials: Int
    let concurrency: Int
    let collector = FanOutCollector()

    init(api: ControlPlaneClient, publishers: Int, subscribers: Int, trials: Int, concurrency: Int) {
        self.api = api
        self.publishers = publishers
        self.subscribers = subscribers
        self.trials = trials
        self.concurrency = concurrency
    }

    struct Client {
        let stage: Stage
        let strategy: BenchStrategy
        let renderer: BenchRenderer
    }

    func run() async throws -> String {
        let stageArn = try await api.createStage(name: "bench").arn
        var tokens: [(String, Bool)] = []
        for index in 0..<(publishers + subscribers) {
            let publishes = index < publishers
            let token = try await api.createParticipantToken(stageArn: stageArn, userId: publishes ? "pub\(index)" : "sub\(index)",
                                                             capabilities: publishes ? ["PUBLISH", "SUBSCRIBE"] : ["SUBSCRIBE"])
            tokens.append((token.token ?? "", publishes))
        }
        let clients = try tokens.map { token, publishes in
            let strategy = BenchStrategy(publish: publishes)
            let renderer = BenchRenderer(collector: collector)
            let stage = try Stage(token: token, strategy: strategy, media: false)
            stage.addRenderer(renderer)
            return Client(stage: stage, strategy: strategy, renderer: renderer)
        }

        // Publishers first, then everyone else, `concurrency` joins at a time.
        var joinTimes: [Double] = []
        for batchStart in stride(from: 0, to: clients.count, by: concurrency) {
            let stages = clients[batchStart..<min(batchStart + concurrency, clients.count)].map(\.stage)
            await withTaskGroup(of: Double?.self) { group in
                for stage in stages {
                    group.addTask { await self.timedJoin(stage) }
                }
                for await time in group { if let time { joinTimes.append(time) } }
            }
        }
        guard joinTimes.count == clients.count else {
            throw BenchError("only \(joinTimes.count) of \(clients.count) clients joined")
        }
        let watchers = clients.count - 1
        // Everyone must be subscribed to every publisher before measuring.
        await waitUntil(.seconds(60)) { self.collector.subscribedStreams >= watchers * self.publishers }

        var muteDelays: [Double] = [], publishDelays: [Double] = [], announceDelays: [Double] = [], pingTimes: [Double] = []
        var muteSamples: [Double] = [], addSamples: [Double] = []
        for trial in 0..<trials {
            let publisher = clients[trial % publishers]
            collector.begin(expected: watchers, kind: .mute)
            publisher.strategy.streams[1].setMuted(!publisher.strategy.streams[1].isMuted)
            muteDelays.append(try await collector.finish())
            muteSamples += collector.samples

            collector.begin(expected: watchers, kind: .leave)
            publisher.strategy.publish = false
            publisher.stage.refreshStrategy()
            _ = try await collector.finish()
            collector.begin(expected: watchers, kind: .add)
            publisher.strategy.publish = true
            publisher.stage.refreshStrategy()
            publishDelays.append(try await collector.finish())
            addSamples += collector.samples
            announceDelays.append(collector.lastJoinDelay)

            pingTimes.append(await ping(clients[publishers + trial % subscribers].stage))
        }
        for client in clients { client.stage.leave() }
        return """
            signaling fan-out: \(publishers) publishers + \(subscribers) subscribe-only clients on one stage (loopback, 1 process)
              join time            p50 \(fmt(percentile(joinTimes, 50))) ms   p99 \(fmt(percentile(joinTimes, 99))) ms   (n=\(joinTimes.count), \(concurrency) in flight)
              slowest client per trial:
              mute → last callback p50 \(fmt(percentile(muteDelays, 50))) ms   p99 \(fmt(percentile(muteDelays, 99))) ms   (\(watchers) callbacks each, n=\(trials))
              publish → last join  p50 \(fmt(percentile(announceDelays, 50))) ms   p99 \(fmt(percentile(announceDelays, 99))) ms   (participantDidJoin on \(watchers) clients)
              publish → last add   p50 \(fmt(percentile(publishDelays, 50))) ms   p99 \(fmt(percentile(publishDelays, 99))) ms   (\(watchers) subscriptions each, n=\(trials))
              per client (every callback of every trial, n=\(muteSamples.count) / \(addSamples.count)):
                mute → callback    p50 \(fmt(percentile(muteSamples, 50))) ms   p99 \(fmt(percentile(muteSamples, 99))) ms
                publish → add      p50 \(fmt(percentile(addSamples, 50))) ms   p99 \(fmt(percentile(addSamples, 99))) ms
              reference: ping RTT  p50 \(fmt(percentile(pingTimes, 50))) ms   p99 \(fmt(percentile(pingTimes, 99))) ms   (one socket, no fan-out)
            """
    }

    /// Milliseconds from `join()` to its return, or nil when the join failed.
    func timedJoin(_ stage: Stage) async -> Double? {
        let start = ContinuousClock.now
        guard (try? await stage.join()) != nil else { return nil }
        return (ContinuousClock.now - start).milliseconds
    }

    /// One signaling round trip on a joined client's socket, through the SDK's request path.
    func ping(_ stage: Stage) async -> Double {
        let start = ContinuousClock.now
        let answered = await stage.roundTrip()
        return answered ? (ContinuousClock.now - start).milliseconds : .nan
    }

    func fmt(_ value: Double) -> String { String(format: "%.1f", value) }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.filter { !$0.isNaN }.sorted()
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((p / 100 * Double(sorted.count - 1)).rounded(.up))
    return sorted[min(rank, sorted.count - 1)]
}

extension Duration {
    var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}

@MainActor
func waitUntil(_ timeout: Duration, _ condition: () -> Bool) async {
    let deadline = ContinuousClock.now + timeout
    while !condition(), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(1)) }
}
