import StageKit
import StageProtocol
import Testing

/// Table tests of `StrategyDiff.actions(from:to:publishers:)`: the pure function from the applied
/// and desired strategy state to the signaling requests `refreshStrategy()` sends.
@Suite struct StrategyDiffTests {
    /// One transition: the applied state, the desired one, who publishes now, and what must be sent.
    struct Transition: Sendable, CustomTestStringConvertible {
        let name: String
        let applied: StrategyState
        let desired: StrategyState
        let publishers: Set<String>
        let expected: [StrategyAction]

        init(_ name: String, from applied: StrategyState, to desired: StrategyState,
             publishers: Set<String> = [], expect expected: [StrategyAction]) {
            self.name = name
            self.applied = applied
            self.desired = desired
            self.publishers = publishers
            self.expected = expected
        }

        var testDescription: String { name }
    }

    static let camera = StreamDescriptor(streamId: "camera", kind: .video)
    static let mic = StreamDescriptor(streamId: "mic", kind: .audio)
    static let mutedCamera = StreamDescriptor(streamId: "camera", kind: .video, muted: true)
    static let mutedMic = StreamDescriptor(streamId: "mic", kind: .audio, muted: true)
    static let screen = StreamDescriptor(streamId: "screen", kind: .video)

    // MARK: Unchanged state sends nothing

    static let unchanged: [Transition] = [
        // The initial state of a stage that neither publishes nor subscribes.
        Transition("nothing → nothing sends nothing",
                   from: .init(), to: .init(), expect: []),
        // Remote publishers exist, but neither side subscribes to them.
        Transition("not subscribed → not subscribed, with publishers present, sends nothing",
                   from: .init(), to: .init(), publishers: ["alice", "bob"], expect: []),
        // Same streams in the same order with the same mute flags.
        Transition("publishing camera+mic → same camera+mic sends nothing",
                   from: .init(published: [camera, mic]), to: .init(published: [camera, mic]), expect: []),
        // Muted streams that stay muted.
        Transition("publishing muted mic → still muted mic sends nothing",
                   from: .init(published: [mutedMic]), to: .init(published: [mutedMic]), expect: []),
        // Publishing with no stream at all is still "publishing": no unpublish/publish churn.
        Transition("publishing [] → publishing [] sends nothing",
                   from: .init(published: []), to: .init(published: []), expect: []),
        // Subscriptions of two kinds that are already applied.
        Transition("subscribed alice=audioVideo, bob=audioOnly → same sends nothing",
                   from: .init(subscriptions: ["alice": .audioVideo, "bob": .audioOnly]),
                   to: .init(subscriptions: ["alice": .audioVideo, "bob": .audioOnly]),
                   publishers: ["alice", "bob"], expect: []),
        // An explicit `.none` desire equals an absent entry.
        Transition("unsubscribed → desired .none (explicit) sends nothing",
                   from: .init(), to: .init(subscriptions: ["alice": .none]), publishers: ["alice"], expect: []),
        // Publishing and subscribing at once, all applied already.
        Transition("publishing + subscribed → same publishing + subscribed sends nothing",
                   from: .init(published: [camera, mic], subscriptions: ["alice": .audioVideo]),
                   to: .init(published: [camera, mic], subscriptions: ["alice": .audioVideo]),
                   publishers: ["alice", "carol"], expect: []),
    ]

    @Test(arguments: unchanged)
    func unchangedStateSendsNothing(_ t: Transition) {
        #expect(t.applied == t.desired)
        #expect(StrategyDiff.actions(from: t.applied, to: t.desired, publishers: t.publishers) == t.expected)
    }

    // MARK: Publishing

    static let publishing: [Transition] = [
        // Starting to publish sends the whole stream list.
        Transition("not publishing → publishing camera+mic sends publish(camera, mic)",
                   from: .init(), to: .init(published: [camera, mic]), expect: [.publish([camera, mic])]),
        // A stream list that starts muted is published as is, with no separate mute.
        Transition("not publishing → publishing muted mic sends publish(muted mic) only",
                   from: .init(), to: .init(published: [mutedMic]), expect: [.publish([mutedMic])]),
        // Stopping sends one unpublish, whatever the streams were.
        Transition("publishing camera+mic → not publishing sends unpublish",
                   from: .init(published: [camera, mic]), to: .init(), expect: [.unpublish]),
        // Even publishing an empty list is undone with an unpublish.
        Transition("publishing [] → not publishing sends unpublish",
                   from: .init(published: []), to: .init(), expect: [.unpublish]),
        // Only the mute flag of the mic changes: one mute request, no republish.
        Transition("camera+mic → camera+muted mic sends only mute(mic, true)",
                   from: .init(published: [camera, mic]), to: .init(published: [camera, mutedMic]),
                   expect: [.mute(streamId: "mic", muted: true)]),
        // Unmuting is the same request with `muted: false`.
        Transition("muted camera+mic → camera+mic sends only mute(camera, false)",
                   from: .init(published: [mutedCamera, mic]), to: .init(published: [camera, mic]),
                   expect: [.mute(streamId: "camera", muted: false)]),
        // Both flags flip: one mute per stream, in stream order.
        Transition("camera+mic → muted camera+muted mic sends mute(camera), mute(mic) in stream order",
                   from: .init(published: [camera, mic]), to: .init(published: [mutedCamera, mutedMic]),
                   expect: [.mute(streamId: "camera", muted: true), .mute(streamId: "mic", muted: true)]),
        // A stream is added: the new list replaces the old one.
        Transition("mic → mic+camera (stream added) sends publish(mic, camera)",
                   from: .init(published: [mic]), to: .init(published: [mic, camera]), expect: [.publish([mic, camera])]),
        // A stream is removed: the new list replaces the old one (no unpublish).
        Transition("camera+mic → mic (stream removed) sends publish(mic)",
                   from: .init(published: [camera, mic]), to: .init(published: [mic]), expect: [.publish([mic])]),
        // The camera is replaced by a screen share of the same kind.
        Transition("camera+mic → screen+mic (stream replaced) sends publish(screen, mic)",
                   from: .init(published: [camera, mic]), to: .init(published: [screen, mic]),
                   expect: [.publish([screen, mic])]),
        // Same id, other kind: a different stream.
        Transition("camera(video) → camera(audio) (kind changed) sends publish",
                   from: .init(published: [camera]),
                   to: .init(published: [StreamDescriptor(streamId: "camera", kind: .audio)]),
                   expect: [.publish([StreamDescriptor(streamId: "camera", kind: .audio)])]),
        // Replaced and muted at once: the publish carries the mute flag, no extra mute request.
        Transition("camera+mic → screen+muted mic sends publish(screen, muted mic) and no mute",
                   from: .init(published: [camera, mic]), to: .init(published: [screen, mutedMic]),
                   expect: [.publish([screen, mutedMic])]),
        // From an empty list to one stream.
        Transition("publishing [] → publishing mic sends publish(mic)",
                   from: .init(published: []), to: .init(published: [mic]), expect: [.publish([mic])]),
    ]

    @Test(arguments: publishing)
    func publishTransitions(_ t: Transition) {
        #expect(StrategyDiff.actions(from: t.applied, to: t.desired, publishers: t.publishers) == t.expected)
    }

    // MARK: Subscribing

    static let subscribing: [Transition] = [
        // A new subscription to a publisher.
        Transition("alice none → audioVideo sends subscribe(alice, audioVideo)",
                   from: .init(), to: .init(subscriptions: ["alice": .audioVideo]), publishers: ["alice"],
                   expect: [.subscribe(participantId: "alice", type: .audioVideo)]),
        Transition("alice none → audioOnly sends subscribe(alice, audioOnly)",
                   from: .init(), to: .init(subscriptions: ["alice": .audioOnly]), publishers: ["alice"],
                   expect: [.subscribe(participantId: "alice", type: .audioOnly)]),
        // Downgrading: nothing is removed, one subscribe with the new type is sent.
        Transition("audioVideo → audioOnly removes nothing but sends one subscribe",
                   from: .init(subscriptions: ["alice": .audioVideo]), to: .init(subscriptions: ["alice": .audioOnly]),
                   publishers: ["alice"], expect: [.subscribe(participantId: "alice", type: .audioOnly)]),
        // Upgrading the other way.
        Transition("audioOnly → audioVideo sends one subscribe",
                   from: .init(subscriptions: ["alice": .audioOnly]), to: .init(subscriptions: ["alice": .audioVideo]),
                   publishers: ["alice"], expect: [.subscribe(participantId: "alice", type: .audioVideo)]),
        // Dropping the entry unsubscribes with an explicit `.none`.
        Transition("audioOnly → none (entry absent) sends subscribe(alice, none)",
                   from: .init(subscriptions: ["alice": .audioOnly]), to: .init(), publishers: ["alice"],
                   expect: [.subscribe(participantId: "alice", type: .none)]),
        // Same with an explicit `.none` entry in the desired state.
        Transition("audioVideo → none (explicit .none) sends subscribe(alice, none)",
                   from: .init(subscriptions: ["alice": .audioVideo]), to: .init(subscriptions: ["alice": .none]),
                   publishers: ["alice"], expect: [.subscribe(participantId: "alice", type: .none)]),
        // Bob does not publish yet: the subscription waits until he does.
        Transition("bob (not publishing) none → audioVideo sends nothing: waits for bob to publish",
                   from: .init(), to: .init(subscriptions: ["bob": .audioVideo]), publishers: ["alice"], expect: []),
        // No publisher at all.
        Transition("bob none → audioOnly with no publishers sends nothing",
                   from: .init(), to: .init(subscriptions: ["bob": .audioOnly]), publishers: [], expect: []),
        // Bob stopped publishing; the server already dropped that subscription, so nothing to send.
        Transition("bob (stopped publishing) audioVideo → none sends nothing",
                   from: .init(subscriptions: ["bob": .audioVideo]), to: .init(), publishers: ["alice"], expect: []),
        // Only the publishing participant gets a request; the other desired one waits.
        Transition("alice+bob none → audioVideo with only alice publishing subscribes to alice only",
                   from: .init(), to: .init(subscriptions: ["alice": .audioVideo, "bob": .audioVideo]),
                   publishers: ["alice"], expect: [.subscribe(participantId: "alice", type: .audioVideo)]),
    ]

    @Test(arguments: subscribing)
    func subscribeTransitions(_ t: Transition) {
        #expect(StrategyDiff.actions(from: t.applied, to: t.desired, publishers: t.publishers) == t.expected)
    }

    // MARK: Ordering

    static let ordering: [Transition] = [
        // Three publishers given in no particular order: subscribes come sorted by id.
        Transition("carol, alice, bob none → audioVideo subscribes alice, bob, carol in id order",
                   from: .init(), to: .init(subscriptions: ["carol": .audioVideo, "alice": .audioVideo, "bob": .audioOnly]),
                   publishers: ["carol", "bob", "alice"],
                   expect: [.subscribe(participantId: "alice", type: .audioVideo),
                            .subscribe(participantId: "bob", type: .audioOnly),
                            .subscribe(participantId: "carol", type: .audioVideo)]),
        // Publishing starts together with subscriptions: publish first, then the subscribes.
        Transition("start publishing + subscribe to two publishers sends publish first, then sorted subscribes",
                   from: .init(), to: .init(published: [camera, mic], subscriptions: ["zoe": .audioOnly, "ann": .audioVideo]),
                   publishers: ["zoe", "ann"],
                   expect: [.publish([camera, mic]),
                            .subscribe(participantId: "ann", type: .audioVideo),
                            .subscribe(participantId: "zoe", type: .audioOnly)]),
        // Unpublish comes first as well.
        Transition("stop publishing + unsubscribe sends unpublish first, then subscribe(none)",
                   from: .init(published: [camera], subscriptions: ["ann": .audioVideo]), to: .init(),
                   publishers: ["ann"],
                   expect: [.unpublish, .subscribe(participantId: "ann", type: .none)]),
        // Mute requests (in stream order) precede the subscribes; unchanged subscriptions are skipped.
        Transition("mute flip + mixed subscription changes sends mute, then changed subscribes by id",
                   from: .init(published: [camera, mic], subscriptions: ["b": .audioVideo, "c": .audioOnly, "d": .audioVideo]),
                   to: .init(published: [camera, mutedMic], subscriptions: ["a": .audioOnly, "c": .audioOnly, "d": .audioOnly]),
                   publishers: ["d", "c", "b", "a"],
                   expect: [.mute(streamId: "mic", muted: true),
                            .subscribe(participantId: "a", type: .audioOnly),
                            .subscribe(participantId: "b", type: .none),
                            .subscribe(participantId: "d", type: .audioOnly)]),
    ]

    @Test(arguments: ordering)
    func severalChangesComeInDeterministicOrder(_ t: Transition) {
        let first = StrategyDiff.actions(from: t.applied, to: t.desired, publishers: t.publishers)
        #expect(first == t.expected)
        // Rebuilding the set changes its iteration order between runs, never the result.
        let again = StrategyDiff.actions(from: t.applied, to: t.desired, publishers: Set(t.publishers.shuffled()))
        #expect(again == first)
    }

    // MARK: StrategyState

    @Test("StrategyState init drops .none entries, so it equals the state without them")
    func stateInitDropsNoneEntries() {
        let state = StrategyState(subscriptions: ["alice": .none, "bob": .audioOnly, "carol": .none])
        #expect(state.subscriptions == ["bob": .audioOnly])
        #expect(state == StrategyState(subscriptions: ["bob": .audioOnly]))
        #expect(StrategyState(subscriptions: ["alice": .none]) == StrategyState())
    }

    @Test("StrategyState defaults: not publishing, no subscriptions")
    func stateDefaults() {
        let state = StrategyState()
        #expect(state.published == nil)
        #expect(state.subscriptions.isEmpty)
        // Not publishing differs from publishing no stream.
        #expect(state != StrategyState(published: []))
    }

    @Test("diffing a state against itself sends nothing, for every transition's endpoints")
    func diffAgainstItselfIsEmpty() {
        let all = Self.unchanged + Self.publishing + Self.subscribing + Self.ordering
        for t in all {
            #expect(StrategyDiff.actions(from: t.desired, to: t.desired, publishers: t.publishers).isEmpty, "\(t.name)")
            #expect(StrategyDiff.actions(from: t.applied, to: t.applied, publishers: t.publishers).isEmpty, "\(t.name)")
        }
    }
}
