import StageProtocol
import Testing
@testable import StageKit

/// Table tests of `Roster`: the remote publishers as the server announced them, and what each
/// change gives the renderers.
@Suite struct RosterTests {
    static let camera = StreamDescriptor(streamId: "camera", kind: .video)
    static let mic = StreamDescriptor(streamId: "mic", kind: .audio)
    static let mutedCamera = StreamDescriptor(streamId: "camera", kind: .video, muted: true)
    static let mutedMic = StreamDescriptor(streamId: "mic", kind: .audio, muted: true)
    static let screen = StreamDescriptor(streamId: "screen", kind: .video)

    /// One announcement from the server, or one step of the stage, applied to the roster.
    enum Change: Sendable {
        /// `participantJoined` (or a publisher in `joined`): outputs "joined <id> <publish state>", or "-".
        case add(String, [StreamDescriptor])
        /// The participant stopped publishing or left: outputs "left <id> <publish state>", or "-".
        case remove(String)
        /// Outputs "<id> <subscribe state>", or "-" when unknown or unchanged.
        case subscribeState(String, ParticipantSubscribeState)
        /// `streamsChanged`: outputs the streams it now publishes, or "-".
        case streams(String, [StreamDescriptor])
        /// `muteChanged`: outputs the received streams whose flags were given, as "<id>:<muted>", or "-".
        case mute(String, [StreamDescriptor])
        /// What is received from it becomes `streams`: outputs "-<removed> +<added>", or "-".
        case receive(String, [StreamDescriptor])
        /// The stream objects of a subscription of `type`: outputs their ids.
        case stageStreams(String, SubscribeType)
    }

    struct Script: Sendable, CustomTestStringConvertible {
        let name: String
        let changes: [Change]
        let outputs: [String]
        /// The participant ids afterwards, in the order they appeared.
        let order: [String]
        var testDescription: String { name }
    }

    static let scripts: [Script] = [
        Script(name: "publishers are added once, in the order they appeared; this client is not one",
               changes: [.add("bob", [mic]), .add("me", [camera]), .add("alice", [camera]), .add("bob", [camera])],
               outputs: ["joined bob published", "-", "joined alice published", "-"], order: ["bob", "alice"]),
        Script(name: "a removed publisher leaves not published; the others keep their order",
               changes: [.add("a", []), .add("b", []), .add("c", []), .remove("b"), .remove("b"), .remove("zoe")],
               outputs: ["joined a published", "joined b published", "joined c published", "left b notPublished", "-", "-"],
               order: ["a", "c"]),
        Script(name: "a publisher back after leaving comes last",
               changes: [.add("a", []), .add("b", []), .remove("a"), .add("a", [])],
               outputs: ["joined a published", "joined b published", "left a notPublished", "joined a published"], order: ["b", "a"]),
        Script(name: "a subscribe state is reported when it changes, and carried to the leave",
               changes: [.add("a", [mic]), .subscribeState("a", .notSubscribed), .subscribeState("a", .attemptingSubscribe),
                         .subscribeState("a", .subscribed), .subscribeState("a", .subscribed), .subscribeState("zoe", .subscribed),
                         .remove("a")],
               outputs: ["joined a published", "-", "a attemptingSubscribe", "a subscribed", "-", "-", "left a notPublished subscribed"],
               order: []),
        Script(name: "received streams: removals and additions against what was received",
               changes: [.add("a", [camera, mic]), .receive("a", [camera, mic]), .receive("a", [mic]), .receive("a", [mic, screen]),
                         .receive("a", []), .receive("zoe", [mic])],
               outputs: ["joined a published", "-[] +[camera, mic]", "-[camera] +[]", "-[] +[screen]", "-[mic, screen] +[]", "-"],
               order: ["a"]),
        Script(name: "streamsChanged replaces what is published, not what is received",
               changes: [.add("a", [mic]), .receive("a", [mic]), .streams("a", [camera, mic]), .streams("zoe", [mic]),
                         .stageStreams("a", .audioVideo)],
               outputs: ["joined a published", "-[] +[mic]", "camera, mic", "-", "camera, mic"], order: ["a"]),
        Script(name: "mute flags reach received streams only; none received, nothing to report",
               changes: [.add("a", [camera, mic]), .mute("a", [mutedCamera]), .receive("a", [mic]), .mute("a", [mutedCamera, mutedMic]),
                         .mute("zoe", [mutedMic]), .stageStreams("a", .audioVideo)],
               outputs: ["joined a published", "-", "-[] +[mic]", "mic:true", "-", "camera:true, mic:true"], order: ["a"]),
        Script(name: "a subscription's stream objects are the published streams of its kinds",
               changes: [.add("a", [camera, mic, screen]), .stageStreams("a", .audioOnly), .stageStreams("a", .audioVideo),
                         .stageStreams("a", .none), .stageStreams("zoe", .audioVideo)],
               outputs: ["joined a published", "mic", "camera, mic, screen", "", ""], order: ["a"]),
    ]

    @Test(arguments: scripts) @MainActor
    func changes(_ script: Script) {
        var roster = Roster(localParticipantId: "me")
        let outputs = script.changes.map { change in
            switch change {
            case .add(let id, let streams):
                let publisher = PublisherDescriptor(participant: Self.participant(id), streams: streams)
                return roster.add(publisher).map { "joined \($0.participantId) \($0.publishState)" } ?? "-"
            case .remove(let id):
                return roster.remove(id).map { info in
                    "left \(info.participantId) \(info.publishState)" + (info.subscribeState == .notSubscribed ? "" : " \(info.subscribeState)")
                } ?? "-"
            case .subscribeState(let id, let state):
                return roster.setSubscribeState(state, of: id).map { "\($0.participantId) \($0.subscribeState)" } ?? "-"
            case .streams(let id, let streams):
                return roster.setStreams(streams, of: id).map { $0.streams.map(\.streamId).joined(separator: ", ") } ?? "-"
            case .mute(let id, let streams):
                return roster.setMuted(streams, of: id).map { _, changed in
                    changed.map { "\($0.streamId):\($0.isMuted)" }.joined(separator: ", ")
                } ?? "-"
            case .receive(let id, let streams):
                return roster.receive(streams, from: id).map { "-[\(Self.ids($0.removed))] +[\(Self.ids($0.added))]" } ?? "-"
            case .stageStreams(let id, let type):
                return roster.stageStreams(of: id, for: type).map { "\($0.streamId)\($0.isMuted ? ":true" : "")" }
                    .joined(separator: ", ")
            }
        }
        #expect(outputs == script.outputs)
        #expect(roster.order == script.order)
        #expect(roster.participants.map(\.info.participantId) == script.order)
        #expect(roster.participantIds == Set(script.order))
    }

    @Test("renderers see one object per stream: the same in add, mute and remove, its mute flag kept current") @MainActor
    func oneObjectPerStream() throws {
        var roster = Roster(localParticipantId: "me")
        _ = roster.add(PublisherDescriptor(participant: Self.participant("a"), streams: [Self.camera, Self.mic]))
        let received = roster.receive([Self.camera, Self.mic], from: "a")
        let added = try #require(received).added
        let muteChange = roster.setMuted([Self.mutedCamera], of: "a")
        let (_, muted) = try #require(muteChange)
        #expect(muted.count == 1 && muted[0] === added[0] && added[0].isMuted)
        let subscribed = roster.stageStreams(of: "a", for: .audioVideo)
        #expect(subscribed.count == 2 && subscribed[0] === added[0] && subscribed[1] === added[1])
        let unsubscribed = roster.receive([], from: "a")
        let removed = try #require(unsubscribed).removed
        #expect(removed.count == 2 && removed[0] === added[0] && removed[1] === added[1])
    }

    @Test("removing all forgets every participant") @MainActor
    func removeAll() {
        var roster = Roster(localParticipantId: "me")
        _ = roster.add(PublisherDescriptor(participant: Self.participant("a"), streams: [Self.mic]))
        _ = roster.add(PublisherDescriptor(participant: Self.participant("b"), streams: [Self.mic]))
        roster.removeAll()
        #expect(roster.order.isEmpty && roster.participants.isEmpty && roster["a"] == nil)
        #expect(roster.add(PublisherDescriptor(participant: Self.participant("a"), streams: [])) != nil)
    }

    static func participant(_ id: String) -> ParticipantDescriptor {
        ParticipantDescriptor(participantId: id, userId: "user-\(id)", attributes: [:],
                              capabilities: Capabilities(allowPublish: true, allowSubscribe: true))
    }

    @MainActor static func ids(_ streams: [StageStream]) -> String { streams.map { $0.streamId }.joined(separator: ", ") }
}
