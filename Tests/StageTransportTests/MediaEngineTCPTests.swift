import NIOCore
import NIOEmbedded
import Testing
@testable import StageTransport
import StageWire

/// The media engine's ICE-TCP connections (RFC 6544 passive, RFC 4571 framing) driven event by
/// event on an embedded event loop: re-entrant reads, read bursts, deferred closes, the caps,
/// and what an authenticated connection tolerates.
struct MediaEngineTCPTests {
    typealias Harness = EmbeddedMediaEngine

    @Test("a read delivered from inside the handling of a frame (a write that makes NIO read) is queued and handled after it, in order")
    func reenteredReadIsQueued() throws {
        let harness = try Harness()
        let peer = try harness.peer()
        let first = STUNTransactionID.random(), second = STUNTransactionID.random(), third = STUNTransactionID.random()
        // The answer to the first check is written inside its handling; the write delivers the
        // second check, and the answer to that one the third.
        let hook = ReadOnWrite(reads: [Harness.framed(Harness.check(for: peer, id: second)),
                                       Harness.framed(Harness.check(for: peer, id: third))])
        let channel = try harness.connectTCP(handlers: [hook])
        // Before the fix this trapped: the re-entered read entered the connection's reader while
        // the outer read was using it (Swift exclusivity).
        try channel.writeInbound(channel.allocator.buffer(bytes: Harness.framed(Harness.check(for: peer, useCandidate: true, id: first))))
        let answers = try Harness.stunFrames(channel)
        #expect(answers.map(\.type) == [.bindingSuccess, .bindingSuccess, .bindingSuccess])
        #expect(answers.map(\.transactionID) == [first, second, third], "each check answered once, in the order they arrived")
        #expect(channel.isActive)
        #expect(try harness.engine.tcpConnections.count == 1 && #require(peer.selectedPath?.connection) === harness.engine.tcpConnections.values.first)
    }

    @Test("bursts nest: another channel going inactive does not flush what an open read burst wrote; its own readComplete does")
    func inactiveEndsOnlyItsOwnBurst() throws {
        let harness = try Harness()
        let peer = try harness.peer()
        let reading = try harness.connectTCP(port: 40001)
        let other = try harness.connectTCP(port: 40002)
        reading.pipeline.fireChannelRead(reading.allocator.buffer(bytes: Harness.framed(Harness.check(for: peer))))
        #expect(try Harness.stunFrames(reading).isEmpty, "written inside the burst, not flushed yet")
        try other.close().wait()
        #expect(try Harness.stunFrames(reading).isEmpty, "the other channel's channelInactive ended no burst of the reading one")
        reading.pipeline.fireChannelReadComplete()
        #expect(try Harness.stunFrames(reading).map(\.type) == [.bindingSuccess], "flushed when the outermost burst ended")
    }

    @Test("a connection closed while its frames are handled closes on the next loop turn; later frames of the read are dropped; its slots come back")
    func closeIsDeferred() throws {
        let harness = try Harness(limits: ICETCPLimits(maximumUnauthenticated: 1, maximumUnauthenticatedPerSource: 1))
        let peer = try harness.peer()
        let channel = try harness.connectTCP()
        // Garbage first (closes an unauthenticated connection), then a check that must not be handled.
        try channel.writeInbound(channel.allocator.buffer(bytes: Harness.framed([0xFF, 0x00]) + Harness.framed(Harness.check(for: peer))))
        #expect(channel.isActive, "not closed from inside the read")
        #expect(try Harness.stunFrames(channel).isEmpty && peer.tcpConnections.isEmpty, "the check after the garbage was not handled")
        harness.settle()
        #expect(!channel.isActive)
        #expect(harness.engine.tcpConnections.isEmpty && harness.engine.unauthenticatedTCP == 0 && harness.engine.unauthenticatedTCPBySource.isEmpty)
        _ = try harness.connectTCP(port: 40003)   // the one pending slot is free again
    }

    /// Swallows `channelInactive`, as a channel that never became active never fires it.
    final class NoInactive: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        func channelInactive(context: ChannelHandlerContext) {}
    }

    @Test("a channel that closes without its handlers seeing channelInactive is forgotten all the same (its closeFuture gives the slots back)")
    func closedWithoutInactive() throws {
        let harness = try Harness(limits: ICETCPLimits(maximumUnauthenticatedPerSource: 1))
        let channel = EmbeddedChannel(loop: harness.loop)
        channel.remoteAddress = try SocketAddress(ipAddress: "192.0.2.9", port: 1)
        try channel.pipeline.syncOperations.addHandler(NoInactive())
        try harness.engine.accept(channel)
        #expect(harness.engine.tcpConnections.count == 1 && harness.engine.unauthenticatedTCP == 1)
        try channel.close().wait()
        harness.settle()
        #expect(harness.engine.tcpConnections.isEmpty && harness.engine.unauthenticatedTCP == 0 && harness.engine.unauthenticatedTCPBySource.isEmpty)
        _ = try harness.connectTCP(from: "192.0.2.9", port: 2)
    }

    @Test("unauthenticated connections are capped per IPv4 address and per IPv6 /64, apart from the server-wide caps")
    func perSourceCap() throws {
        let harness = try Harness(limits: ICETCPLimits(maximumUnauthenticatedPerSource: 2))
        _ = try harness.connectTCP(from: "192.0.2.1", port: 1)
        _ = try harness.connectTCP(from: "192.0.2.1", port: 2)
        #expect(throws: MediaEngine.ConnectionRefused.self) { try harness.connectTCP(from: "192.0.2.1", port: 3) }
        _ = try harness.connectTCP(from: "192.0.2.2", port: 1)
        _ = try harness.connectTCP(from: "2001:db8:0:0::1", port: 1)
        _ = try harness.connectTCP(from: "2001:db8:0:0:ffff::2", port: 1)
        #expect(throws: MediaEngine.ConnectionRefused.self) { try harness.connectTCP(from: "2001:db8::3", port: 1) }
        _ = try harness.connectTCP(from: "2001:db8:0:1::1", port: 1)   // another /64
        #expect(harness.engine.unauthenticatedTCPBySource[.v4(0xC000_0201)] == 2)
    }

    @Test("authentication frees the source's pending slot")
    func authenticationFreesSourceSlot() throws {
        let harness = try Harness(limits: ICETCPLimits(maximumUnauthenticatedPerSource: 1))
        let peer = try harness.peer()
        let first = try harness.connectTCP(port: 1)
        try first.writeInbound(first.allocator.buffer(bytes: Harness.framed(Harness.check(for: peer))))
        #expect(peer.tcpConnections.count == 1)
        _ = try harness.connectTCP(port: 2)
    }

    @Test("a peer holds at most its cap of connections: one more closes its oldest that is not the selected path")
    func perPeerCap() throws {
        let harness = try Harness(limits: ICETCPLimits(maximumPerPeer: 2))
        let peer = try harness.peer()
        let selected = try harness.connectTCP(port: 1), spare = try harness.connectTCP(port: 2), newest = try harness.connectTCP(port: 3)
        for channel in [selected, spare, newest] {
            try channel.writeInbound(channel.allocator.buffer(bytes: Harness.framed(Harness.check(for: peer))))
        }
        harness.settle()
        #expect(selected.isActive && !spare.isActive && newest.isActive)
        #expect(peer.tcpConnections.count == 2 && peer.selectedPath?.connection === peer.tcpConnections.first)
    }

    @Test("connections that are not the selected path close once unused for the timeout; the selected one stays")
    func unselectedConnectionsClose() throws {
        let harness = try Harness(limits: ICETCPLimits(unselectedTimeout: .seconds(10)))
        let peer = try harness.peer()
        let first = try harness.connectTCP(port: 1), second = try harness.connectTCP(port: 2)
        try first.writeInbound(first.allocator.buffer(bytes: Harness.framed(Harness.check(for: peer))))
        try second.writeInbound(second.allocator.buffer(bytes: Harness.framed(Harness.check(for: peer, useCandidate: true))))
        #expect(peer.selectedPath?.connection === peer.tcpConnections.last, "the nomination moved the path to the second")
        harness.engine.closeUnselectedTCP(of: peer, now: .now() + .seconds(5))
        harness.settle()
        #expect(first.isActive, "not before the timeout")
        harness.engine.closeUnselectedTCP(of: peer, now: .now() + .seconds(11))
        harness.settle()
        #expect(!first.isActive && second.isActive)
        #expect(peer.tcpConnections.count == 1)
    }

    @Test("after authentication, garbage, an empty frame and unparsable STUN are dropped, the connection stays; before, each closes it",
          arguments: [[0xFF, 0x00, 0x01], [], [0x00, 0x01, 0x00, 0x08, 0x21, 0x12]] as [[UInt8]])
    func garbageAfterAuthentication(_ frame: [UInt8]) throws {
        let harness = try Harness()
        let peer = try harness.peer()
        let authenticated = try harness.connectTCP(port: 1)
        try authenticated.writeInbound(authenticated.allocator.buffer(bytes: Harness.framed(Harness.check(for: peer, useCandidate: true))))
        try authenticated.writeInbound(authenticated.allocator.buffer(bytes: Harness.framed(frame) + Harness.framed(Harness.check(for: peer))))
        harness.settle()
        #expect(authenticated.isActive && peer.selectedPath?.connection != nil, "the selected path stays")
        #expect(try Harness.stunFrames(authenticated).count == 2, "and the check after the bad frame is answered")

        let pending = try harness.connectTCP(port: 2)
        try pending.writeInbound(pending.allocator.buffer(bytes: Harness.framed(frame)))
        harness.settle()
        #expect(!pending.isActive)
    }

    @Test("a verified check for another peer on an authenticated connection is dropped unanswered; the connection stays its peer's")
    func otherPeersCheck() throws {
        let harness = try Harness()
        let owner = try harness.peer("owner"), other = try harness.peer("other")
        let channel = try harness.connectTCP()
        try channel.writeInbound(channel.allocator.buffer(bytes: Harness.framed(Harness.check(for: owner))))
        try channel.writeInbound(channel.allocator.buffer(bytes: Harness.framed(Harness.check(for: other, useCandidate: true))))
        harness.settle()
        #expect(try Harness.stunFrames(channel).count == 1)
        #expect(channel.isActive && other.selectedPath == nil && owner.tcpConnections.count == 1)
    }
}
