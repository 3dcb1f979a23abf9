import Foundation
import StageKit

/// Subscribe to every publisher; publish camera + mic when told to.
@MainActor
final class BenchStrategy: StageStrategy {
    var publish: Bool
    let streams = [LocalStageStream(device: .init(deviceId: "camera", kind: .video)),
                   LocalStageStream(device: .init(deviceId: "mic", kind: .audio))]

    init(publish: Bool) { self.publish = publish }

    func stage(_ stage: Stage, shouldSubscribeToParticipant participant: ParticipantInfo) -> SubscribeType { .audioVideo }
    func stage(_ stage: Stage, shouldPublishParticipant participant: ParticipantInfo) -> Bool { publish }
    func stage(_ stage: Stage, streamsToPublishForParticipant participant: ParticipantInfo) -> [LocalStageStream] { streams }
}

/// Counts the callbacks a change causes on remote clients and when the last one arrived.
@MainActor
final class FanOutCollector {
    enum Kind { case mute, leave, add }
    private var kind: Kind?
    private var expected = 0
    private var received = 0
    private var start = ContinuousClock.now
    private var last = ContinuousClock.now
    private(set) var subscribedStreams = 0
    private var lastJoin = ContinuousClock.now
    /// Delay of every callback of the current trial (one per client), in ms.
    private(set) var samples: [Double] = []
    /// Start → the last participantDidJoin of the current trial, in ms.
    var lastJoinDelay: Double { (lastJoin - start).milliseconds }

    func begin(expected: Int, kind: Kind) {
        self.expected = expected
        self.kind = kind
        received = 0
        samples = []
        start = .now
    }

    /// Resumed by the last expected callback (or by the timeout in `finish`).
    private var waiter: CheckedContinuation<Void, Never>?

    func record(_ kind: Kind) {
        guard kind == self.kind else { return }
        received += 1
        last = .now
        samples.append((last - start).milliseconds)
        if received >= expected { wake() }
    }

    private func wake() {
        waiter?.resume()
        waiter = nil
    }

    func countSubscription() { subscribedStreams += 1 }
    func recordJoin() { if kind == .add { lastJoin = .now } }

    /// Waits (bounded) for every expected callback; returns start → last callback in ms.
    /// The last callback resumes it: no polling competes with the clients for the main actor.
    func finish() async throws -> Double {
        if received < expected {
            let timeout = Task { [weak self] in
                guard (try? await Task.sleep(for: .seconds(30))) != nil else { return }  // cancelled: the callbacks came
                self?.wake()
            }
            await withCheckedContinuation { waiter = $0 }
            timeout.cancel()
        }
        guard received >= expected else { throw BenchError("only \(received) of \(expected) callbacks arrived") }
        kind = nil
        return (last - start).milliseconds
    }
}

@MainActor
final class BenchRenderer: StageRenderer {
    let collector: FanOutCollector
    init(collector: FanOutCollector) { self.collector = collector }

    func stage(_ stage: Stage, participant: ParticipantInfo, didChangeMutedStreams streams: [StageStream]) {
        if !participant.isLocal { collector.record(.mute) }
    }
    func stage(_ stage: Stage, participantDidJoin participant: ParticipantInfo) {
        if !participant.isLocal { collector.recordJoin() }
    }
    func stage(_ stage: Stage, participantDidLeave participant: ParticipantInfo) {
        if !participant.isLocal { collector.record(.leave) }
    }
    func stage(_ stage: Stage, participant: ParticipantInfo, didAdd streams: [StageStream]) {
        guard !participant.isLocal else { return }
        collector.countSubscription()
        collector.record(.add)
    }
}
