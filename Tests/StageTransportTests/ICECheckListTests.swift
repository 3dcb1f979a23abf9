import StageWire
import Testing
@testable import StageTransport

/// The controlling agent's check list without I/O (RFC 8445 §6.1.2, §7.2.5, §8.1.1; RFC 6544 §6.2).
@Suite struct ICECheckListTests {
    static let t0 = ContinuousClock.now

    static func candidate(_ ip: String, _ port: UInt16 = 5000, type: ICECandidateType = .host, transport: ICETransportProtocol = .udp,
                          tcp: ICETCPType? = nil, preference: UInt16 = 65535) -> ICECandidate {
        ICECandidate(foundation: "f", type: type, transport: transport, tcpType: tcp, address: STUNAddress(ip: IPAddress(ip)!, port: port),
                     priority: ICEPriority.candidate(type: type, localPreference: preference))
    }

    @Test("RFC 8445 §6.1.2.2, RFC 6544 §6.2: which local and remote candidates pair", arguments: [
        (Self.candidate("192.0.2.1"), Self.candidate("203.0.113.10"), true),
        (Self.candidate("2001:db8::1"), Self.candidate("2001:db8::10"), true),
        (Self.candidate("192.0.2.1"), Self.candidate("2001:db8::10"), false),
        (Self.candidate("127.0.0.1"), Self.candidate("203.0.113.10"), false),
        (Self.candidate("192.0.2.1"), Self.candidate("127.0.0.1"), false),
        (Self.candidate("127.0.0.1"), Self.candidate("127.0.0.1"), true),
        (Self.candidate("192.0.2.1", transport: .tcp, tcp: .active), Self.candidate("203.0.113.10", transport: .tcp, tcp: .passive), true),
        (Self.candidate("192.0.2.1", transport: .tcp, tcp: .active), Self.candidate("203.0.113.10", transport: .tcp, tcp: .active), false),
        (Self.candidate("192.0.2.1"), Self.candidate("203.0.113.10", transport: .tcp, tcp: .passive), false),
        (Self.candidate("198.51.100.1", type: .srflx), Self.candidate("203.0.113.10"), false),
        (Self.candidate("198.51.100.2", type: .relay), Self.candidate("203.0.113.10"), true),
    ])
    func pairing(_ local: ICECandidate, _ remote: ICECandidate, _ pairs: Bool) {
        #expect(ICECheckList.canPair(local, remote) == pairs)
    }

    /// Checks sent by `list.tick` at `now`, by pair.
    static func checks(_ outputs: [ICECheckList.Output]) -> [(pair: Int, transaction: STUNTransactionID, nominate: Bool)] {
        outputs.compactMap { if case .check(let pair, let transaction, let nominate) = $0 { (pair, transaction, nominate) } else { nil } }
    }

    /// UDP IPv6 and IPv4 host pairs and a TCP pair, best first.
    static func threePairs() -> ICECheckList {
        var list = ICECheckList()
        list.restart(locals: [(Self.candidate("2001:db8::1", preference: 65535), 1), (Self.candidate("192.0.2.1", preference: 65471), 2),
                              (Self.candidate("192.0.2.1", 0, transport: .tcp, tcp: .active, preference: ICEPriority.tcpLocalPreference(.active, other: 8191)), 3)],
                     remotes: [Self.candidate("2001:db8::10", 7880), Self.candidate("203.0.113.10", 7880),
                               Self.candidate("203.0.113.10", 7881, transport: .tcp, tcp: .passive, preference: ICEPriority.tcpLocalPreference(.passive, other: 8191))])
        return list
    }

    @Test("RFC 8445 §6.1.2.3, §14.2: pairs by priority (UDP before TCP), one new check every Ta")
    func orderAndPacing() {
        var list = Self.threePairs()
        #expect(list.pairs.map(\.base) == [1, 2, 3])
        #expect(list.pairs.map(\.priority) == list.pairs.map(\.priority).sorted(by: >))
        let first = Self.checks(list.tick(now: Self.t0))
        #expect(first.map(\.pair) == [list.pairs[0].id] && first[0].nominate == false)
        #expect(Self.checks(list.tick(now: Self.t0 + .milliseconds(20))).isEmpty, "paced: nothing new before Ta")
        #expect(Self.checks(list.tick(now: Self.t0 + .milliseconds(50))).map(\.pair) == [list.pairs[1].id])
        #expect(Self.checks(list.tick(now: Self.t0 + .milliseconds(100))).map(\.pair) == [list.pairs[2].id])
    }

    @Test("RFC 8445 §8.1.1: the best pair succeeding is nominated at once; its nomination selects it")
    func bestPairNominatedAtOnce() {
        var list = Self.threePairs()
        let check = Self.checks(list.tick(now: Self.t0))[0]
        let nomination = Self.checks(list.receiveResponse(transactionID: check.transaction, success: true, now: Self.t0 + .milliseconds(1)))
        #expect(nomination.count == 1 && nomination[0].pair == check.pair && nomination[0].nominate)
        #expect(nomination[0].transaction != check.transaction, "a nomination is a new transaction")
        let selected = list.receiveResponse(transactionID: nomination[0].transaction, success: true, now: Self.t0 + .milliseconds(2))
        #expect(selected == [.selected(pair: check.pair)])
        #expect(list.selected == check.pair)
        #expect(Self.checks(list.tick(now: Self.t0 + .milliseconds(60))).isEmpty, "completed: nothing more is checked")
    }

    @Test("a worse pair that succeeds first waits for better ones, then the best that succeeded is nominated")
    func worsePairWaits() {
        var list = Self.threePairs()
        _ = list.tick(now: Self.t0)                                            // IPv6 UDP: no answer (say UDP is blocked)
        _ = list.tick(now: Self.t0 + .milliseconds(50))                        // IPv4 UDP: no answer either
        let tcp = Self.checks(list.tick(now: Self.t0 + .milliseconds(100))).last!
        #expect(tcp.pair == list.pairs[2].id)
        #expect(list.receiveResponse(transactionID: tcp.transaction, success: true, now: Self.t0 + .milliseconds(110)).isEmpty,
                "better pairs are still being checked")
        let due = Self.checks(list.tick(now: Self.t0 + .milliseconds(410)))
        #expect(due.contains { $0.pair == tcp.pair && $0.nominate }, "nominated after nominationWait")
    }

    @Test("RFC 8445 §14.3: UDP checks are sent again at 200, 600, 1400 ms… with the same transaction; a pair fails after the timeout; TCP is sent once")
    func retransmissionsAndTimeout() {
        var list = ICECheckList()
        list.restart(locals: [(Self.candidate("192.0.2.1"), 1), (Self.candidate("192.0.2.1", 0, transport: .tcp, tcp: .active, preference: 1000), 2)],
                     remotes: [Self.candidate("203.0.113.10"), Self.candidate("203.0.113.10", 7881, transport: .tcp, tcp: .passive, preference: 1000)])
        let udp = Self.checks(list.tick(now: Self.t0))[0]
        let tcp = Self.checks(list.tick(now: Self.t0 + .milliseconds(50)))[0]
        var sent: [Int] = [0]
        for ms in stride(from: 100, through: 4900, by: 100) {
            for check in Self.checks(list.tick(now: Self.t0 + .milliseconds(ms))) {
                #expect(check.pair == udp.pair, "TCP is not retransmitted")
                #expect(check.transaction == udp.transaction)
                sent.append(ms)
            }
        }
        #expect(sent == [0, 200, 600, 1400, 3000])
        #expect(list.tick(now: Self.t0 + .milliseconds(5100)) == [.failed], "both pairs timed out: failed, once")
        #expect(list.tick(now: Self.t0 + .milliseconds(6000)).isEmpty)
        #expect(list.pairs.allSatisfy { $0.state == .failed })
        _ = tcp
    }

    @Test("a nomination that fails moves to the next pair that succeeded")
    func failedNominationMovesOn() {
        var list = Self.threePairs()
        let v6 = Self.checks(list.tick(now: Self.t0))[0]
        let v4 = Self.checks(list.tick(now: Self.t0 + .milliseconds(50)))[0]
        #expect(list.receiveResponse(transactionID: v4.transaction, success: true, now: Self.t0 + .milliseconds(51)).isEmpty)
        let nominateV6 = Self.checks(list.receiveResponse(transactionID: v6.transaction, success: true, now: Self.t0 + .milliseconds(52)))[0]
        #expect(nominateV6.pair == v6.pair && nominateV6.nominate)
        let next = Self.checks(list.receiveResponse(transactionID: nominateV6.transaction, success: false, now: Self.t0 + .milliseconds(53)))
        #expect(next.count == 1 && next[0].pair == v4.pair && next[0].nominate)
    }

    @Test("while a TURN allocation is under way, running out of pairs is not a failure; its pairs come later")
    func relayArrivesLater() {
        var list = ICECheckList()
        list.expectingMoreLocals = true
        list.restart(locals: [], remotes: [Self.candidate("203.0.113.10", 7880)])
        #expect(list.tick(now: Self.t0).isEmpty)
        list.add(local: Self.candidate("198.51.100.2", 50000, type: .relay, preference: 65535), base: 7, remotes: [Self.candidate("203.0.113.10", 7880)])
        let check = Self.checks(list.tick(now: Self.t0 + .milliseconds(60)))
        #expect(check.count == 1 && list.pair(check[0].pair)?.base == 7)
    }

    @Test("restart keeps the selected pair until another is selected")
    func restartKeepsSelection() {
        var list = Self.threePairs()
        let check = Self.checks(list.tick(now: Self.t0))[0]
        let nomination = Self.checks(list.receiveResponse(transactionID: check.transaction, success: true, now: Self.t0))[0]
        _ = list.receiveResponse(transactionID: nomination.transaction, success: true, now: Self.t0)
        let old = list.selected
        list.restart(locals: [(Self.candidate("192.0.2.3"), 9)], remotes: [Self.candidate("203.0.113.10", 7880)])
        #expect(list.selected == old)
        let recheck = Self.checks(list.tick(now: Self.t0 + .seconds(1)))[0]
        let renominate = Self.checks(list.receiveResponse(transactionID: recheck.transaction, success: true, now: Self.t0 + .seconds(1)))[0]
        #expect(list.receiveResponse(transactionID: renominate.transaction, success: true, now: Self.t0 + .seconds(1)) == [.selected(pair: recheck.pair)])
        #expect(list.pair(recheck.pair)?.base == 9)
    }
}
