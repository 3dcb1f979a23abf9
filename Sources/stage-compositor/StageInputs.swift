import Foundation
import StageKit
import Synchronization

/// What the compositor receives from the stage, as the output clock reads it: the publishers in
/// the order they started publishing, with their token attributes, whether their video plays,
/// and the newest decoded picture of each. Written from the SDK's media threads and the main
/// actor, read by the output clock; `version` changes whenever the layout may have to.
final class StageInputs: Sendable {
    struct Publisher: Sendable {
        var participantId: String
        var userId: String
        var attributes: [String: String]
        var hasVideoStream = false
        var videoMuted = false
        var latest: VideoFrame?
        /// When `latest` arrived (monotonic µs), to stop showing a picture that froze long ago.
        var latestMicros: UInt64 = 0
        /// The largest picture seen: the full simulcast layer's size (the layer first forwarded).
        var fullSize: (width: Int, height: Int)?

        var showsVideo: Bool { hasVideoStream && !videoMuted }
    }

    struct Snapshot: Sendable {
        var version: Int
        var publishers: [Publisher]
    }

    private let state = Mutex<(version: Int, publishers: [Publisher])>((0, []))

    func snapshot() -> Snapshot {
        state.withLock { Snapshot(version: $0.version, publishers: $0.publishers) }
    }

    func publisherAdded(_ participant: ParticipantInfo) {
        state.withLock { state in
            guard !state.publishers.contains(where: { $0.participantId == participant.participantId }) else { return }
            state.publishers.append(Publisher(participantId: participant.participantId, userId: participant.userId,
                                              attributes: participant.attributes))
            state.version += 1
        }
    }

    func publisherRemoved(_ participantId: String) {
        state.withLock { state in
            state.publishers.removeAll { $0.participantId == participantId }
            state.version += 1
        }
    }

    func setVideo(_ participantId: String, present: Bool, muted: Bool) {
        update(participantId, relayout: true) { publisher in
            publisher.hasVideoStream = present
            publisher.videoMuted = muted
            if !present || muted { publisher.latest = nil }
        }
    }

    func deliver(_ frame: VideoFrame, from participantId: String, atMicros now: UInt64) {
        state.withLock { state in
            guard let index = state.publishers.firstIndex(where: { $0.participantId == participantId }) else { return }
            let hadPicture = state.publishers[index].latest != nil
            state.publishers[index].latest = frame
            state.publishers[index].latestMicros = now
            // The first picture and a larger full size may change the layout (AUTO aspect ratio)
            // and the layer to ask for.
            if let full = state.publishers[index].fullSize, full.width >= frame.width && full.height >= frame.height {
                if !hadPicture { state.version += 1 }
                return
            }
            state.publishers[index].fullSize = (frame.width, frame.height)
            state.version += 1
        }
    }

    private func update(_ participantId: String, relayout: Bool, _ change: (inout Publisher) -> Void) {
        state.withLock { state in
            guard let index = state.publishers.firstIndex(where: { $0.participantId == participantId }) else { return }
            change(&state.publishers[index])
            if relayout { state.version += 1 }
        }
    }
}
