import StageWire

/// The controlling agent's check list for one component (RFC 8445 §6.1.2, §6.1.4, §7.2.5,
/// §8.1.1), without I/O: it forms and orders the pairs, says which check to send when, reads
/// the answers and nominates. The agent moves the bytes and the clock.
///
/// - Pairs: a local candidate with a remote one of the same family and transport (UDP with UDP,
///   TCP active with TCP passive, RFC 6544 §6.2), loopback only with loopback; ordered by the
///   pair priority of §6.1.2.3; at most ``maximumPairs`` (§6.1.2.5).
/// - Pacing: one new check every `Ta` (§14.2); over UDP a check is sent again after 200, 400,
///   800 ms… (RTO doubling, §14.3) and a pair fails when nothing answered for `checkTimeout`.
/// - Regular nomination (§8.1.1): a pair that succeeds while no better pair is still being
///   checked is nominated at once (a check with USE-CANDIDATE); otherwise the best pair that
///   succeeded is nominated `nominationWait` after the first success.
struct ICECheckList {
    struct Pair {
        let id: Int
        let local: ICECandidate
        /// The agent's name for the socket or allocation the local candidate lives on.
        let base: Int
        let remote: ICECandidate
        let priority: UInt64
        var state = State.waiting
        var transactionID: STUNTransactionID?
        var transmissions = 0
        var firstSent: ContinuousClock.Instant?
        var lastSent: ContinuousClock.Instant?
        var retransmitAt: ContinuousClock.Instant?
        /// The check in flight carries USE-CANDIDATE.
        var nominating = false
        var roundTrip: Duration?
    }

    enum State: Equatable {
        case waiting
        case inProgress
        case succeeded
        case failed
    }

    /// What the agent must do, in order.
    enum Output: Equatable {
        /// Send a Binding request on the pair (a new transaction, or a retransmission of it).
        case check(pair: Int, transactionID: STUNTransactionID, useCandidate: Bool)
        /// The pair's nomination succeeded: media goes over it from now on.
        case selected(pair: Int)
        /// Every pair failed and none is left to try.
        case failed
    }

    static let maximumPairs = 100
    var pacing: Duration = .milliseconds(50)
    var initialRTO: Duration = .milliseconds(200)
    var checkTimeout: Duration = .seconds(5)
    var nominationWait: Duration = .milliseconds(300)

    private(set) var pairs: [Pair] = []
    private(set) var selected: Int?
    private var nextPairID = 1
    private var lastNewCheck: ContinuousClock.Instant?
    private var nominationDeadline: ContinuousClock.Instant?
    /// While the agent still gathers (a TURN allocation under way), running out of pairs is not a failure yet.
    var expectingMoreLocals = false
    /// After a selection nothing new is checked until `restart`.
    private var completed = false
    private var reportedFailure = false

    /// Forms the pairs of `locals` (with the agent's base of each) and `remotes`, replacing any
    /// earlier ones, and starts checking them. A selected pair stays selected until another is.
    mutating func restart(locals: [(candidate: ICECandidate, base: Int)], remotes: [ICECandidate]) {
        var formed: [Pair] = []
        for local in locals {
            for remote in remotes where Self.canPair(local.candidate, remote) {
                formed.append(Pair(id: nextPairID, local: local.candidate, base: local.base, remote: remote,
                                   priority: ICEPriority.pair(controlling: local.candidate.priority, controlled: remote.priority)))
                nextPairID += 1
            }
        }
        formed.sort { $0.priority > $1.priority }
        pairs = Array(formed.prefix(Self.maximumPairs))
        completed = false
        reportedFailure = false
        nominationDeadline = nil
        lastNewCheck = nil
    }

    /// Adds pairs for a local candidate found later (a relayed one once its allocation exists).
    mutating func add(local: ICECandidate, base: Int, remotes: [ICECandidate]) {
        for remote in remotes where Self.canPair(local, remote) && pairs.count < Self.maximumPairs {
            pairs.append(Pair(id: nextPairID, local: local, base: base, remote: remote,
                              priority: ICEPriority.pair(controlling: local.priority, controlled: remote.priority)))
            nextPairID += 1
        }
        pairs.sort { $0.priority > $1.priority }
        reportedFailure = false
    }

    /// RFC 8445 §6.1.2.2 (same component and family), RFC 6544 §6.2 (TCP active to passive);
    /// loopback pairs only with loopback, so a remote server is never tried from 127.0.0.1.
    static func canPair(_ local: ICECandidate, _ remote: ICECandidate) -> Bool {
        guard local.address.ip.isIPv4 == remote.address.ip.isIPv4, local.isLoopback == remote.isLoopback,
              local.type != .srflx, local.type != .prflx else { return false }
        switch (local.transport, remote.transport) {
        case (.udp, .udp): return true
        case (.tcp, .tcp): return local.tcpType == .active && remote.tcpType == .passive
        default: return false
        }
    }

    func pair(_ id: Int) -> Pair? { pairs.first { $0.id == id } }

    /// When `tick` has something to do next (nil: nothing until an answer arrives).
    var nextDeadline: ContinuousClock.Instant? {
        var deadlines = pairs.compactMap { pair -> ContinuousClock.Instant? in
            guard pair.state == .inProgress else { return nil }
            let timeout = pair.firstSent.map { $0 + checkTimeout }
            return [pair.retransmitAt, timeout].compactMap { $0 }.min()
        }
        if let nominationDeadline { deadlines.append(nominationDeadline) }
        if !completed, pairs.contains(where: { $0.state == .waiting }) {
            deadlines.append(lastNewCheck.map { $0 + pacing } ?? .now)
        }
        return deadlines.min()
    }

    /// Timeouts, retransmissions, a nomination that is due, and the next paced check.
    mutating func tick(now: ContinuousClock.Instant) -> [Output] {
        var out: [Output] = []
        for index in pairs.indices where pairs[index].state == .inProgress {
            if let first = pairs[index].firstSent, now >= first + checkTimeout {
                out += fail(pair: pairs[index].id, now: now)
            } else if let at = pairs[index].retransmitAt, now >= at, let transaction = pairs[index].transactionID {
                pairs[index].transmissions += 1
                pairs[index].lastSent = now
                pairs[index].retransmitAt = now + initialRTO * (1 << min(pairs[index].transmissions - 1, 4))
                out.append(.check(pair: pairs[index].id, transactionID: transaction, useCandidate: pairs[index].nominating))
            }
        }
        if let deadline = nominationDeadline, now >= deadline {
            nominationDeadline = nil
            out += nominateBest(now: now)
        }
        if !completed, lastNewCheck.map({ now >= $0 + pacing }) ?? true,
           let index = pairs.firstIndex(where: { $0.state == .waiting }) {
            lastNewCheck = now
            out.append(send(index, useCandidate: false, now: now))
        }
        if !reportedFailure, !completed, !expectingMoreLocals, !pairs.contains(where: { $0.state != .failed }) {
            reportedFailure = true
            out.append(.failed)
        }
        return out
    }

    /// The pair a check's transaction belongs to, while it is in flight.
    func pair(forTransaction transactionID: STUNTransactionID) -> Pair? {
        pairs.first { $0.transactionID == transactionID && $0.state == .inProgress }
    }

    /// A success or error response to one of our checks (integrity already verified).
    mutating func receiveResponse(transactionID: STUNTransactionID, success: Bool, now: ContinuousClock.Instant) -> [Output] {
        guard let index = pairs.firstIndex(where: { $0.transactionID == transactionID }), pairs[index].state == .inProgress else { return [] }
        pairs[index].retransmitAt = nil
        guard success else {
            let wasNominating = pairs[index].nominating
            pairs[index].state = .failed
            pairs[index].nominating = false
            return wasNominating ? nominateBest(now: now) : []
        }
        pairs[index].state = .succeeded
        if let sent = pairs[index].lastSent { pairs[index].roundTrip = now - sent }
        if pairs[index].nominating {
            pairs[index].nominating = false
            selected = pairs[index].id
            completed = true
            nominationDeadline = nil
            return [.selected(pair: pairs[index].id)]
        }
        guard !pairs.contains(where: \.nominating) else { return [] }
        let better = pairs[..<index].contains { $0.state == .waiting || $0.state == .inProgress }
        if !better { return [send(index, useCandidate: true, now: now)] }
        if nominationDeadline == nil { nominationDeadline = now + nominationWait }
        return []
    }

    /// The agent could not send on the pair (a TCP connection refused, the socket gone).
    mutating func fail(pair id: Int, now: ContinuousClock.Instant) -> [Output] {
        guard let index = pairs.firstIndex(where: { $0.id == id }), pairs[index].state != .failed else { return [] }
        let wasNominating = pairs[index].nominating
        pairs[index].state = .failed
        pairs[index].nominating = false
        pairs[index].retransmitAt = nil
        return wasNominating ? nominateBest(now: now) : []
    }

    /// A consent or keepalive check on the selected pair answered: its round trip.
    mutating func updateRoundTrip(pair id: Int, _ roundTrip: Duration) {
        guard let index = pairs.firstIndex(where: { $0.id == id }) else { return }
        pairs[index].roundTrip = roundTrip
    }

    private mutating func nominateBest(now: ContinuousClock.Instant) -> [Output] {
        guard !pairs.contains(where: \.nominating), let index = pairs.firstIndex(where: { $0.state == .succeeded }) else { return [] }
        return [send(index, useCandidate: true, now: now)]
    }

    private mutating func send(_ index: Int, useCandidate: Bool, now: ContinuousClock.Instant) -> Output {
        let transaction = STUNTransactionID.random()
        pairs[index].state = .inProgress
        pairs[index].transactionID = transaction
        pairs[index].transmissions = 1
        pairs[index].firstSent = now
        pairs[index].lastSent = now
        pairs[index].nominating = useCandidate
        pairs[index].retransmitAt = pairs[index].local.transport == .udp ? now + initialRTO : nil
        return .check(pair: pairs[index].id, transactionID: transaction, useCandidate: useCandidate)
    }
}
