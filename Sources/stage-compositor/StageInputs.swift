import Foundation
import StageKit
import StageMedia
import Synchronization

/// What the compositor receives from the stage, as the output clock reads it: the publishers in
/// the order they started publishing, with their token attributes, whether their video plays,
/// and their recent decoded pictures (up to `heldVideoMicros`, so video can wait for its audio).
/// Written from the SDK's media threads and the main actor, read by the output clock;
/// `version` changes whenever the layout may have to.
final class StageInputs: Sendable {
    struct Publisher: Sendable {
        var participantId: String
        var userId: String
        var attributes: [String: String]
        var hasVideoStream = false
        var videoMuted = false
        /// Decoded pictures, oldest first, with when each arrived (monotonic µs).
        var recent: [(frame: VideoFrame, arrivalMicros: UInt64)] = []
        /// The sender time (µs, its wall clock) just after the newest audio handed to the mixer.
        var audioSenderEndMicros: UInt64?
        var latest: VideoFrame? { recent.last?.frame }
        /// When `latest` arrived (monotonic µs), to stop showing a picture that froze long ago.
        var latestMicros: UInt64 { recent.last?.arrivalMicros ?? 0 }
        /// The largest picture seen: the full simulcast layer's size (the layer first forwarded).
        var fullSize: (width: Int, height: Int)?

        var showsVideo: Bool { hasVideoStream && !videoMuted }
    }

    struct Snapshot: Sendable {
        var version: Int
        var publishers: [Publisher]
    }

    private let state = Mutex<(version: Int, publishers: [Publisher])>((0, []))
    /// How long decoded pictures are kept for lip sync: the most video can be held back.
    let heldVideoMicros: UInt64 = 400_000

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
            if !present || muted { publisher.recent = [] }
        }
    }

    func deliver(_ frame: VideoFrame, from participantId: String, atMicros now: UInt64) {
        state.withLock { state in
            guard let index = state.publishers.firstIndex(where: { $0.participantId == participantId }) else { return }
            let hadPicture = !state.publishers[index].recent.isEmpty
            state.publishers[index].recent.append((frame, now))
            let horizon = now > heldVideoMicros ? now - heldVideoMicros : 0
            if let keep = state.publishers[index].recent.firstIndex(where: { $0.arrivalMicros >= horizon }), keep > 0 {
                state.publishers[index].recent.removeFirst(keep)
            }
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

    /// Audio of `participantId` went to the mixer: `frame` ends at its sender time + duration.
    func noteAudio(_ frame: AudioFrame, from participantId: String) {
        guard let start = frame.senderTimeMicros else { return }
        let end = start + UInt64(frame.samplesPerChannel) * 1_000_000 / UInt64(AudioFrame.sampleRate)
        update(participantId, relayout: false) { $0.audioSenderEndMicros = end }
    }

    private func update(_ participantId: String, relayout: Bool, _ change: (inout Publisher) -> Void) {
        state.withLock { state in
            guard let index = state.publishers.firstIndex(where: { $0.participantId == participantId }) else { return }
            change(&state.publishers[index])
            if relayout { state.version += 1 }
        }
    }
}

extension StageInputs.Publisher {
    /// The picture to show with audio whose sender time is `audioMicros`: the newest one
    /// captured no later than it (video waits for its audio, RTCP SR lip sync); the oldest held
    /// when all are later (audio ahead: the best we can do without delaying the mix); the
    /// newest when either side has no sender time yet.
    func picture(forAudioAt audioMicros: UInt64?) -> VideoFrame? {
        guard let audioMicros, recent.last?.frame.senderTimeMicros != nil else { return latest }
        return recent.last { ($0.frame.senderTimeMicros ?? .max) <= audioMicros }?.frame ?? recent.first?.frame
    }
}
