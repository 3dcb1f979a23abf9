import ArgumentParser
import StageKit

/// The strategies of the IVS "publish and subscribe" guide, selectable with `--strategy`.
enum StrategyChoice: String, ExpressibleByArgument, CaseIterable {
    /// Everyone publishes and everyone sees everyone.
    case videoChat = "video-chat"
    /// role=moderator participants watch everyone and are never published nor subscribed to.
    case moderated
    /// Watch and listen only.
    case viewer
    /// The background pattern: stop publishing, receive audio only.
    case audioOnly = "audio-only"
    /// Publish and receive nothing: a host whose audience watches the composed channel.
    case broadcast

    static var help: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

@MainActor
final class ExampleStrategy: StageStrategy {
    let choice: StrategyChoice
    let streams: [LocalStageStream]

    init(_ choice: StrategyChoice, streams: [LocalStageStream]) {
        self.choice = choice
        self.streams = streams
    }

    func stage(_ stage: Stage, shouldSubscribeToParticipant participant: ParticipantInfo) -> SubscribeType {
        switch choice {
        case .videoChat, .viewer: .audioVideo
        case .moderated: participant.attributes["role"] == "moderator" ? .none : .audioVideo
        case .audioOnly: .audioOnly
        case .broadcast: .none
        }
    }

    func stage(_ stage: Stage, shouldPublishParticipant participant: ParticipantInfo) -> Bool {
        switch choice {
        case .videoChat, .broadcast: true
        case .moderated: participant.attributes["role"] != "moderator"
        case .viewer, .audioOnly: false
        }
    }

    func stage(_ stage: Stage, streamsToPublishForParticipant participant: ParticipantInfo) -> [LocalStageStream] { streams }
}
