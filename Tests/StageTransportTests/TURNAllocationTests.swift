import StageWire
import Testing
@testable import StageTransport

/// ``TURNAllocation`` driven with canned server answers (``TURNFakeServer``), clock by hand.
@Suite struct TURNAllocationTests {
    let server = TURNFakeServer()
    let t0 = ContinuousClock.now
    let peer = STUNAddress(ip: .v4(0xC633_6401), port: 5000) // 198.51.100.1:5000

    func allocation(_ transport: TURNAllocation.Transport = .udp) -> TURNAllocation {
        TURNAllocation(configuration: .init(username: "alice", password: "secret", transport: transport))
    }

    /// Runs start → 401 → authenticated Allocate → success; returns the allocation.
    func allocated(_ transport: TURNAllocation.Transport = .udp) throws -> TURNAllocation {
        var turn = allocation(transport)
        let first = try TURNFakeServer.request(turn.start(now: t0).first)
        let second = try TURNFakeServer.request(turn.receive(try server.challenge(first), now: t0).first)
        let events = turn.receive(server.allocated(second), now: t0)
        #expect(events == [.allocated(relayed: server.relayed, mapped: server.mapped, lifetime: .seconds(600))])
        return turn
    }

    @Test("RFC 8656 §7.1, RFC 8489 §9.2.4: unauthenticated Allocate, 401, then USERNAME/REALM/NONCE/MESSAGE-INTEGRITY")
    func allocateWithLongTermCredentials() throws {
        var turn = allocation()
        let first = try TURNFakeServer.request(turn.start(now: t0).first)
        #expect(first.type == .allocateRequest)
        #expect(try first.requestedTransport == 17)
        #expect(first.messageIntegrity == nil)
        #expect(first.hasFingerprint)
        #expect(turn.state == .allocating)

        let events = turn.receive(try server.challenge(first), now: t0)
        #expect(events.count == 1)
        let second = try TURNFakeServer.request(events.first)
        #expect(second.type == .allocateRequest)
        #expect(second.transactionID != first.transactionID)
        #expect(try second.username == "alice")
        #expect(try second.realm == "proscenium.test")
        #expect(try second.nonce == "nonce-1")
        #expect(second.verifyIntegrity(key: server.key, hmacSHA1: TURNCrypto.hmacSHA1))

        #expect(turn.receive(server.allocated(second), now: t0)
            == [.allocated(relayed: server.relayed, mapped: server.mapped, lifetime: .seconds(600))])
        #expect(turn.state == .allocated(relayed: server.relayed))
        #expect(turn.relayedAddress == server.relayed)
        #expect(turn.mappedAddress == server.mapped)
    }

    @Test("RFC 8489 §9.2.5: 438 Stale Nonce retries with the new nonce")
    func staleNonce() throws {
        var turn = try allocated()
        var stale = server
        stale.nonce = "nonce-2"
        let refresh = try TURNFakeServer.request(turn.tick(now: t0 + .seconds(540)).first) // 600 − 60 s
        let retry = try TURNFakeServer.request(turn.receive(try stale.challenge(refresh, code: 438, reason: "Stale Nonce"), now: t0 + .seconds(540)).first)
        #expect(retry.type == .refreshRequest)
        #expect(try retry.nonce == "nonce-2")
        #expect(retry.verifyIntegrity(key: server.key, hmacSHA1: TURNCrypto.hmacSHA1))
        #expect(turn.receive(server.success(retry) { $0.appendLifetime(600) }, now: t0 + .seconds(541)) == [.refreshed(lifetime: .seconds(600))])
    }

    @Test("RFC 8489 §9.2.5: 401 to an authenticated request means wrong credentials")
    func wrongPassword() throws {
        var turn = TURNAllocation(configuration: .init(username: "alice", password: "wrong", transport: .udp))
        let first = try TURNFakeServer.request(turn.start(now: t0).first)
        let second = try TURNFakeServer.request(turn.receive(try server.challenge(first), now: t0).first)
        let events = turn.receive(try server.challenge(second), now: t0)
        let expected = TURNAllocationError.unauthorized(STUNErrorCode(code: 401, reason: "Unauthorized"))
        #expect(events == [.failed(expected)])
        #expect(turn.state == .failed(expected))
    }

    @Test("RFC 8656 §7.3: an error response fails the allocation with code and reason")
    func allocationQuota() throws {
        var turn = allocation()
        let first = try TURNFakeServer.request(turn.start(now: t0).first)
        let second = try TURNFakeServer.request(turn.receive(try server.challenge(first), now: t0).first)
        let events = turn.receive(try server.error(second, code: 486, reason: "Allocation Quota Reached"), now: t0)
        #expect(events == [.failed(.serverError(method: .allocate, STUNErrorCode(code: 486, reason: "Allocation Quota Reached")))])
        #expect(events.first.map { "\($0)" }?.contains("486") == true)
    }

    @Test("RFC 8489 §9.2.5: a success response with a wrong MESSAGE-INTEGRITY is discarded")
    func forgedSuccessIsDropped() throws {
        var turn = allocation()
        let first = try TURNFakeServer.request(turn.start(now: t0).first)
        let second = try TURNFakeServer.request(turn.receive(try server.challenge(first), now: t0).first)
        #expect(turn.receive(server.success(second, key: [1, 2, 3]), now: t0) == [])
        #expect(turn.drops[.integrityMismatch] == 1)
        #expect(turn.state == .allocating)
        #expect(turn.receive(server.allocated(second), now: t0).count == 1) // the real one still counts
    }

    @Test("RFC 8489 §6.2.1: UDP retransmits at 0.5, 1.5, 3.5, 7.5, 15.5, 31.5 s, gives up at 39.5 s")
    func udpRetransmissions() throws {
        var turn = allocation()
        let first = turn.start(now: t0)
        var sends: [Double] = []
        var failure: [TURNAllocation.Event] = []
        var now = t0
        while let next = turn.nextTimeout, now < t0 + .seconds(60) {
            now = next
            for event in turn.tick(now: now) {
                let seconds = Double((now - t0).components.seconds) + Double((now - t0).components.attoseconds) / 1e18
                if case .send(let bytes) = event {
                    #expect([bytes] == first.map { if case .send(let b) = $0 { b } else { [] } })
                    sends.append(seconds)
                } else {
                    failure.append(event)
                    #expect(seconds == 39.5)
                }
            }
        }
        #expect(sends == [0.5, 1.5, 3.5, 7.5, 15.5, 31.5])
        #expect(failure == [.failed(.timedOut(method: .allocate))])
    }

    @Test("RFC 8489 §6.2.2: over TCP a request is sent once and times out after 39.5 s")
    func tcpNoRetransmissions() {
        var turn = allocation(.tcp)
        #expect(turn.start(now: t0).count == 1)
        #expect(turn.tick(now: t0 + .seconds(39)) == [])
        #expect(turn.nextTimeout == t0 + .milliseconds(39_500))
        #expect(turn.tick(now: t0 + .milliseconds(39_500)) == [.failed(.timedOut(method: .allocate))])
    }

    @Test("RFC 8656 §10, §12: permit sends CreatePermission and ChannelBind; wrap switches to ChannelData once bound")
    func permitAndWrap() throws {
        var turn = try allocated()
        let sends = try turn.permit(peer, now: t0)
        #expect(sends.count == 2)
        let permission = try TURNFakeServer.request(sends.first)
        let bind = try TURNFakeServer.request(sends.last)
        #expect(permission.type == .createPermissionRequest)
        #expect(try permission.xorPeerAddress == peer)
        #expect(bind.type == .channelBindRequest)
        #expect(try bind.channelNumber == 0x4000)
        #expect(try bind.xorPeerAddress == peer)
        #expect(try turn.permit(peer, now: t0).isEmpty) // already under way

        // Before the channel is bound: a Send indication (§11.1).
        let indication = try STUNMessage(parsing: turn.wrap([1, 2, 3], to: peer))
        #expect(indication.type == .sendIndication)
        #expect(try indication.xorPeerAddress == peer)
        #expect(indication.data.map(Array.init) == [1, 2, 3])

        #expect(turn.receive(server.success(permission), now: t0) == [.permissionCreated(peer.ip)])
        #expect(turn.receive(server.success(bind), now: t0) == [.channelBound(peer: peer, channel: 0x4000)])
        #expect(try turn.wrap([1, 2, 3], to: peer) == [0x40, 0x00, 0x00, 0x03, 1, 2, 3])
    }

    @Test("RFC 8656 §12.5: over TCP ChannelData is padded to 4 bytes, and replies split across reads")
    func tcpChannelDataPaddedAndSplitReads() throws {
        var turn = allocation(.tcp)
        let first = try TURNFakeServer.request(turn.start(now: t0).first)
        let challenge = try server.challenge(first)
        var events: [TURNAllocation.Event] = []
        for byte in challenge { events += turn.receive([byte], now: t0) } // one byte per read
        let second = try TURNFakeServer.request(events.first)
        let reply = server.allocated(second)
        #expect(turn.receive(Array(reply.prefix(10)), now: t0) == [])
        #expect(turn.receive(Array(reply.dropFirst(10)), now: t0).count == 1)
        let sends = try turn.permit(peer, now: t0)
        let bind = try TURNFakeServer.request(sends.last)
        _ = turn.receive(server.success(bind), now: t0)
        #expect(try turn.wrap([1, 2, 3], to: peer) == [0x40, 0x00, 0x00, 0x03, 1, 2, 3, 0])
        // ChannelData from the peer, padded, in the same read as a Data indication.
        let stream = [0x40, 0x00, 0x00, 0x01, 9, 0, 0, 0] + (try server.dataIndication(from: peer, [7, 7]))
        _ = turn.receive(server.success(try TURNFakeServer.request(sends.first)), now: t0)
        #expect(turn.receive(stream, now: t0) == [.data(from: peer, payload: [9]), .data(from: peer, payload: [7, 7])])
    }

    @Test("RFC 8656 §12.5: a TCP stream that loses its framing fails the allocation")
    func tcpGarbageFails() throws {
        var turn = allocation(.tcp)
        _ = turn.start(now: t0)
        #expect(turn.receive([0xFF, 0x00, 0x00, 0x00], now: t0) == [.failed(.stream(.unknownFrameType(firstByte: 0xFF)))])
    }

    @Test("RFC 8656 §11.4, §12.6: Data indications and ChannelData become data events; others are dropped")
    func incomingData() throws {
        var turn = try allocated()
        let sends = try turn.permit(peer, now: t0)
        _ = turn.receive(server.success(try TURNFakeServer.request(sends.first)), now: t0)
        _ = turn.receive(server.success(try TURNFakeServer.request(sends.last)), now: t0)
        #expect(turn.receive(try server.dataIndication(from: peer, [1, 2]), now: t0) == [.data(from: peer, payload: [1, 2])])
        #expect(turn.receive([0x40, 0x00, 0x00, 0x02, 3, 4], now: t0) == [.data(from: peer, payload: [3, 4])])
        #expect(turn.receive([0x40, 0x01, 0x00, 0x00], now: t0) == []) // channel 0x4001 not bound
        #expect(turn.drops[.unboundChannel] == 1)
        let stranger = STUNAddress(ip: .v4(0x0A00_0001), port: 1)
        #expect(turn.receive(try server.dataIndication(from: stranger, [5]), now: t0) == [])
        #expect(turn.drops[.noPermission] == 1)
        #expect(turn.receive([0x80, 0, 0, 0], now: t0) == [])
        #expect(turn.drops[.malformed] == 1)
    }

    @Test("RFC 8656 §8, §9, §12: Refresh 60 s before expiry, permissions every 4 min, channels every 9 min")
    func refreshTimers() throws {
        var turn = try allocated()
        let sends = try turn.permit(peer, now: t0)
        _ = turn.receive(server.success(try TURNFakeServer.request(sends.first)), now: t0)
        _ = turn.receive(server.success(try TURNFakeServer.request(sends.last)), now: t0)

        #expect(turn.tick(now: t0 + .seconds(239)) == [])
        let permission = try TURNFakeServer.request(turn.tick(now: t0 + .seconds(240)).first)
        #expect(permission.type == .createPermissionRequest)
        #expect(turn.receive(server.success(permission), now: t0 + .seconds(240)) == []) // renewed silently

        #expect(turn.nextTimeout == t0 + .seconds(480)) // the permission again, 240 + 240 s
        // At 540 s the allocation (600 − 60 s), the permission (due since 480 s) and the channel
        // (9 min) are all due.
        let due = try turn.tick(now: t0 + .seconds(540)).map { try TURNFakeServer.request($0) }
        #expect(due.map(\.type) == [.refreshRequest, .createPermissionRequest, .channelBindRequest])
        guard due.count == 3 else { return }
        #expect(turn.receive(server.success(due[0]) { $0.appendLifetime(600) }, now: t0 + .seconds(540))
            == [.refreshed(lifetime: .seconds(600))])
        #expect(turn.receive(server.success(due[1]), now: t0 + .seconds(540)) == [])
        #expect(turn.receive(server.success(due[2]), now: t0 + .seconds(540)) == [])
        #expect(turn.nextTimeout == t0 + .seconds(780)) // permission 540 + 240 s; refresh 1080 s; channel 1080 s
    }

    @Test("RFC 8656 §8: no successful Refresh before the lifetime ends fails the allocation")
    func expiry() throws {
        var turn = try allocated()
        _ = turn.tick(now: t0 + .seconds(540)) // Refresh sent, never answered
        let events = turn.tick(now: t0 + .seconds(600))
        #expect(events.contains(.failed(.allocationExpired)))
    }

    @Test("RFC 8656 §8: close sends Refresh with LIFETIME 0, then reports closed")
    func close() throws {
        var turn = try allocated()
        let refresh = try TURNFakeServer.request(turn.close(now: t0).first)
        #expect(refresh.type == .refreshRequest)
        #expect(try refresh.lifetime == 0)
        #expect(turn.state == .closing)
        #expect(turn.receive(server.success(refresh) { $0.appendLifetime(0) }, now: t0) == [.closed])
        #expect(turn.state == .closed)
        #expect(throws: TURNAllocationError.notAllocated) { try turn.wrap([1], to: peer) }
    }

    @Test func permitBeforeAllocationIsQueued() throws {
        var turn = allocation()
        let first = try TURNFakeServer.request(turn.start(now: t0).first)
        #expect(try turn.permit(peer, now: t0).isEmpty)
        let second = try TURNFakeServer.request(turn.receive(try server.challenge(first), now: t0).first)
        let events = turn.receive(server.allocated(second), now: t0)
        #expect(events.count == 3) // allocated, CreatePermission, ChannelBind
        var idle = allocation()
        #expect(throws: TURNAllocationError.notAllocated) { try idle.permit(peer, now: t0) }
    }
}
