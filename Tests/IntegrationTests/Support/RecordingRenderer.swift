import Foundation
import StageKit

/// A renderer that writes every callback as one readable line, naming participants by user id:
/// `join host`, `publish guest published`, `add host camera,mic`, `connection connected`.
@MainActor
final class RecordingRenderer: StageRenderer, StageErrorDelegate {
    private(set) var events: [String] = []
    private(set) var errors: [StageError] = []
    private(set) var lastConnectionError: StageError?

    private func who(_ participant: ParticipantInfo) -> String { participant.userId }
    private func names(_ streams: [StageStream]) -> String { streams.map(\.streamId).sorted().joined(separator: ",") }

    func stage(_ stage: Stage, participantDidJoin participant: ParticipantInfo) { events.append("join \(who(participant))") }
    func stage(_ stage: Stage, participantDidLeave participant: ParticipantInfo) { events.append("leave \(who(participant))") }
    func stage(_ stage: Stage, participant: ParticipantInfo, didChange publishState: ParticipantPublishState) {
        events.append("publish \(who(participant)) \(publishState.rawValue)")
    }
    func stage(_ stage: Stage, participant: ParticipantInfo, didChange subscribeState: ParticipantSubscribeState) {
        events.append("subscribe \(who(participant)) \(subscribeState.rawValue)")
    }
    func stage(_ stage: Stage, participant: ParticipantInfo, didAdd streams: [StageStream]) {
        events.append("add \(who(participant)) \(names(streams))")
    }
    func stage(_ stage: Stage, participant: ParticipantInfo, didRemove streams: [StageStream]) {
        events.append("remove \(who(participant)) \(names(streams))")
    }
    func stage(_ stage: Stage, participant: ParticipantInfo, didChangeMutedStreams streams: [StageStream]) {
        events.append("mute \(who(participant)) " + streams.map { "\($0.streamId)=\($0.isMuted)" }.sorted().joined(separator: ","))
    }
    func stage(_ stage: Stage, didChange connectionState: StageConnectionState, withError error: StageError?) {
        events.append("connection \(connectionState.rawValue)")
        if error != nil { lastConnectionError = error }
    }
    func stage(_ stage: Stage, didEncounterError error: StageError) { errors.append(error) }

    /// Takes the events recorded so far, leaving the list empty.
    func drain() -> [String] {
        defer { events.removeAll() }
        return events
    }

    /// Waits until at least `count` events are recorded (bounded), then drains them.
    func next(_ count: Int, within timeout: Duration = .seconds(10)) async -> [String] {
        await waitUntil(timeout) { self.events.count >= count }
        return drain()
    }
}

/// Polls `condition` on the main actor every 5 ms until it holds or `timeout` passes.
@MainActor
func waitUntil(_ timeout: Duration = .seconds(10), _ condition: () -> Bool) async {
    let deadline = ContinuousClock.now + timeout
    while !condition(), ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(5))
    }
}
