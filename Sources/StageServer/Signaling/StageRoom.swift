import Foundation
import StageProtocol

/// The live state of one stage: the current session and who is connected, publishing what,
/// subscribed to whom. Pure state, changed only by `SignalingHub`.
struct StageRoom {
    struct Member {
        var peer: SignalingPeer
        /// nil when not publishing.
        var published: [StreamDescriptor]?
        /// Publisher id → what this member receives from it.
        var subscriptions: [String: SubscribeType] = [:]
    }

    let sessionId: String
    var members: [String: Member] = [:]
    /// When the last member left; the session ends unless someone joins within the linger time.
    var emptiedAt: Date?

    init(sessionId: String) { self.sessionId = sessionId }

    var publishers: [PublisherDescriptor] {
        members.values.compactMap { member in
            member.published.map { PublisherDescriptor(participant: member.peer.participant, streams: $0) }
        }
        .sorted { $0.participant.participantId < $1.participant.participantId }
    }

    /// Every member but `participantId`.
    func others(than participantId: String) -> [SignalingPeer] {
        members.values.filter { $0.peer.participantId != participantId }.map(\.peer)
    }
}
