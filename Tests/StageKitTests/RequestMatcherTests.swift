import StageProtocol
import Testing
@testable import StageKit

/// Table tests of `RequestMatcher`: which reply wakes which waiter. Waiters are names here;
/// `Stage` uses continuations.
@Suite struct RequestMatcherTests {
    typealias Matcher = RequestMatcher<String, String>

    /// One thing the stage does or hears.
    enum Event: Sendable {
        /// A strategy request sent: outputs its request id.
        case request(Matcher.Request)
        /// An `sdpOffer` sent, `waiter` waiting for its answer: outputs its request id.
        case offer(waiter: String)
        /// A round-trip ping sent, `waiter` waiting for its pong: outputs its nonce.
        case ping(waiter: String)
        /// A `publishState`/`subscribeState` or refusal for `requestId`: outputs the request, or "-".
        case reply(String)
        /// An `sdpAnswer`, refusal or timeout for `requestId`: outputs its waiter, or "-".
        case answer(String)
        /// A pong or timeout for `nonce`: outputs its waiter, or "-".
        case pong(Int)
        /// The session ended: requests forgotten, waiters failed (outputs them, sorted).
        case disconnect
    }

    struct Script: Sendable, CustomTestStringConvertible {
        let name: String
        let events: [Event]
        let outputs: [String]
        var testDescription: String { name }
    }

    static let scripts: [Script] = [
        Script(name: "request ids and ping nonces share one count; nonces start above 1 000 000",
               events: [.request(.publish), .offer(waiter: "media"), .ping(waiter: "rtt"), .request(.unpublish)],
               outputs: ["r1", "r2", "1000003", "r4"]),
        Script(name: "a reply matches its request once; an unknown id matches nothing",
               events: [.request(.publish), .request(.subscribe(participantId: "alice", type: .audioOnly)),
                        .reply("r2"), .reply("r2"), .reply("r1"), .reply("r9")],
               outputs: ["r1", "r2", "subscribe(alice, audioOnly)", "-", "publish", "-"]),
        Script(name: "an answer wakes its offer's waiter once, in any order",
               events: [.offer(waiter: "publish media"), .offer(waiter: "alice's media"),
                        .answer("r2"), .answer("r1"), .answer("r1")],
               outputs: ["r1", "r2", "alice's media", "publish media", "-"]),
        Script(name: "a refusal of an offer is not a strategy request's, nor the other way round",
               events: [.request(.unpublish), .offer(waiter: "media"), .answer("r1"), .reply("r2"), .answer("r2"), .reply("r1")],
               outputs: ["r1", "r2", "-", "-", "media", "unpublish"]),
        Script(name: "a pong wakes its ping's waiter once; a keepalive pong (nonce 1) wakes no one",
               events: [.ping(waiter: "first"), .ping(waiter: "second"), .pong(1), .pong(1_000_002), .pong(1_000_002), .pong(1_000_001)],
               outputs: ["1000001", "1000002", "-", "second", "-", "first"]),
        Script(name: "a pong for a nonce never sent wakes no one",
               events: [.request(.publish), .pong(1_000_002)], outputs: ["r1", "-"]),
        Script(name: "disconnecting fails every waiter and forgets requests; ids keep counting",
               events: [.request(.publish), .offer(waiter: "media"), .ping(waiter: "rtt"), .disconnect,
                        .reply("r1"), .answer("r2"), .pong(1_000_003), .request(.unpublish)],
               outputs: ["r1", "r2", "1000003", "answers [media], pongs [rtt]", "-", "-", "-", "r4"]),
        Script(name: "disconnecting with nothing pending fails no one",
               events: [.disconnect], outputs: ["answers [], pongs []"]),
        Script(name: "answered and timed-out waiters are not failed again at disconnect",
               events: [.offer(waiter: "answered"), .offer(waiter: "waiting"), .ping(waiter: "timed out"),
                        .answer("r1"), .pong(1_000_003), .disconnect],
               outputs: ["r1", "r2", "1000003", "answered", "timed out", "answers [waiting], pongs []"]),
    ]

    @Test(arguments: scripts)
    func matching(_ script: Script) {
        var matcher = Matcher()
        let outputs = script.events.map { event in
            switch event {
            case .request(let request): return matcher.register(request)
            case .offer(let waiter): return matcher.register(answerWaiter: waiter)
            case .ping(let waiter):
                let nonce = matcher.newPingNonce()
                matcher.waitForPong(waiter, nonce: nonce)
                return "\(nonce)"
            case .reply(let requestId): return matcher.reply(to: requestId).map(Self.describe) ?? "-"
            case .answer(let requestId): return matcher.answerWaiter(for: requestId) ?? "-"
            case .pong(let nonce): return matcher.pongWaiter(for: nonce) ?? "-"
            case .disconnect:
                matcher.forgetRequests()
                let answers = matcher.removeAnswerWaiters().sorted(), pongs = matcher.removePongWaiters().sorted()
                return "answers [\(answers.joined(separator: ", "))], pongs [\(pongs.joined(separator: ", "))]"
            }
        }
        #expect(outputs == script.outputs)
    }

    static func describe(_ request: Matcher.Request) -> String {
        switch request {
        case .publish: "publish"
        case .unpublish: "unpublish"
        case .subscribe(let participantId, let type): "subscribe(\(participantId), \(type))"
        }
    }
}
