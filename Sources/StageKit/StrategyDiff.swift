public import StageProtocol

/// The publish and subscribe state of the local client, applied or desired.
public struct StrategyState: Sendable, Hashable {
    /// The published streams, or nil when not publishing.
    public var published: [StreamDescriptor]?
    /// Publisher id → subscription; absent means `.none`.
    public var subscriptions: [String: SubscribeType]

    public init(published: [StreamDescriptor]? = nil, subscriptions: [String: SubscribeType] = [:]) {
        self.published = published
        self.subscriptions = subscriptions.filter { $0.value != .none }
    }
}

/// One change that brings the applied state to the desired one; each is one signaling request.
public enum StrategyAction: Sendable, Hashable {
    case publish([StreamDescriptor])
    case unpublish
    case mute(streamId: String, muted: Bool)
    case subscribe(participantId: String, type: SubscribeType)
}

/// The strategy diff of `refreshStrategy()`: a pure function from (applied, desired) to the
/// requests to send. Equal states give no action, so an unchanged strategy sends nothing.
public enum StrategyDiff {
    /// - Parameter publishers: remote participants that publish now; subscriptions to anyone
    ///   else wait until they publish.
    public static func actions(from applied: StrategyState, to desired: StrategyState, publishers: Set<String>) -> [StrategyAction] {
        var actions: [StrategyAction] = []
        switch (applied.published, desired.published) {
        case (nil, let streams?):
            actions.append(.publish(streams))
        case (_?, nil):
            actions.append(.unpublish)
        case (let old?, let new?):
            if old.map(identity) != new.map(identity) {
                actions.append(.publish(new))
            } else {
                for (before, after) in zip(old, new) where before.muted != after.muted {
                    actions.append(.mute(streamId: after.streamId, muted: after.muted))
                }
            }
        case (nil, nil):
            break
        }
        for publisher in publishers.sorted() {
            let want = desired.subscriptions[publisher] ?? .none
            let have = applied.subscriptions[publisher] ?? .none
            if want != have { actions.append(.subscribe(participantId: publisher, type: want)) }
        }
        return actions
    }

    private static func identity(_ stream: StreamDescriptor) -> String { "\(stream.kind.rawValue):\(stream.streamId)" }
}
