import StageProtocol

/// Matches the server's replies to what this client asked: strategy requests by request id,
/// `sdpOffer`s by request id to whoever waits for the answer, round-trip pings by nonce to
/// whoever waits for the pong. Each reply is matched once; what a waiter is, and when it
/// times out, is the caller's.
struct RequestMatcher<PongWaiter, AnswerWaiter> {
    /// A strategy request awaiting its `publishState`/`subscribeState`, or its refusal.
    enum Request {
        case publish
        case unpublish
        case subscribe(participantId: String, type: SubscribeType)
    }

    /// Round-trip nonces count up from here, above the keepalive pings' (1, 2, …), so a
    /// keepalive pong wakes no one.
    static var pingNonceBase: Int { 1_000_000 }

    /// Numbers request ids and round-trip nonces alike.
    private var issued = 0
    private var requests: [String: Request] = [:]
    private var answerWaiters: [String: AnswerWaiter] = [:]
    private var pongWaiters: [Int: PongWaiter] = [:]

    /// Registers a request under an id not used before (`r1`, `r2`, …), returned.
    mutating func register(_ request: Request) -> String {
        let requestId = nextRequestId()
        requests[requestId] = request
        return requestId
    }

    /// Registers who waits for the answer of an `sdpOffer`; returns the offer's request id.
    mutating func register(answerWaiter waiter: AnswerWaiter) -> String {
        let requestId = nextRequestId()
        answerWaiters[requestId] = waiter
        return requestId
    }

    /// The nonce of a new round-trip ping; `waitForPong(_:nonce:)` registers its waiter.
    mutating func newPingNonce() -> Int {
        issued += 1
        return Self.pingNonceBase + issued
    }

    mutating func waitForPong(_ waiter: PongWaiter, nonce: Int) {
        pongWaiters[nonce] = waiter
    }

    /// The request `requestId` answered or refused, now no longer pending.
    mutating func reply(to requestId: String) -> Request? {
        requests.removeValue(forKey: requestId)
    }

    /// Who waits for the answer (or refusal, or timeout) of the `sdpOffer` `requestId`.
    mutating func answerWaiter(for requestId: String) -> AnswerWaiter? {
        answerWaiters.removeValue(forKey: requestId)
    }

    /// Who waits for the pong (or timeout) of the ping `nonce`.
    mutating func pongWaiter(for nonce: Int) -> PongWaiter? {
        pongWaiters.removeValue(forKey: nonce)
    }

    /// The session ended: its requests will get no reply.
    mutating func forgetRequests() {
        requests = [:]
    }

    /// Every answer waiter, no longer waiting: to be failed.
    mutating func removeAnswerWaiters() -> [AnswerWaiter] {
        defer { answerWaiters = [:] }
        return Array(answerWaiters.values)
    }

    /// Every pong waiter, no longer waiting: to be failed.
    mutating func removePongWaiters() -> [PongWaiter] {
        defer { pongWaiters = [:] }
        return Array(pongWaiters.values)
    }

    private mutating func nextRequestId() -> String {
        issued += 1
        return "r\(issued)"
    }
}
