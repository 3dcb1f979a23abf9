import NIOCore
import NIOEmbedded
import Testing
@testable import StageTransport
import StageWire

/// Which path a check selects (RFC 8445 §7.3.1.5, ICE-lite): one live peer per UDP remote
/// address, and no path moved by a replayed request.
struct MediaEngineSelectionTests {
    typealias Harness = EmbeddedMediaEngine

    static func datagram(_ bytes: [UInt8], from address: SocketAddress, allocator: ByteBufferAllocator = ByteBufferAllocator())
        -> AddressedEnvelope<ByteBuffer> {
        AddressedEnvelope(remoteAddress: address, data: allocator.buffer(bytes: bytes))
    }

    @Test("a nomination from an address that is another live peer's selected path is refused, unanswered; the owner keeps it")
    func addressOfAnotherPeer() throws {
        let harness = try Harness()
        let (socket, channel) = try harness.udpSocket()
        let owner = try harness.peer("owner"), intruder = try harness.peer("intruder")
        let shared = try SocketAddress(ipAddress: "192.0.2.1", port: 5000)
        harness.engine.receive(Self.datagram(Harness.check(for: owner, useCandidate: true), from: shared), on: socket)
        #expect(owner.selectedPath?.remote == shared)
        _ = try Harness.datagrams(channel)

        harness.engine.receive(Self.datagram(Harness.check(for: intruder, useCandidate: true), from: shared), on: socket)
        #expect(intruder.selectedPath == nil)
        #expect(harness.engine.peersByAddress[shared] === owner)
        #expect(try Harness.datagrams(channel).isEmpty, "no answer: the client tries another pair")

        owner.close()
        harness.engine.receive(Self.datagram(Harness.check(for: intruder, useCandidate: true), from: shared), on: socket)
        #expect(intruder.selectedPath?.remote == shared, "free once its owner is gone")
    }

    @Test("a USE-CANDIDATE check replayed from another address (same transaction ID) does not move the path; a retransmission is answered again")
    func replayedNomination() throws {
        let harness = try Harness()
        let (socket, channel) = try harness.udpSocket()
        let peer = try harness.peer()
        let client = try SocketAddress(ipAddress: "192.0.2.1", port: 5000)
        let attacker = try SocketAddress(ipAddress: "198.51.100.66", port: 6000)
        let other = try SocketAddress(ipAddress: "192.0.2.1", port: 5002)
        harness.engine.receive(Self.datagram(Harness.check(for: peer, useCandidate: true), from: client), on: socket)
        let nomination = Harness.check(for: peer, useCandidate: true)
        harness.engine.receive(Self.datagram(nomination, from: other), on: socket)
        #expect(peer.selectedPath?.remote == other, "a fresh nomination moves the path")
        _ = try Harness.datagrams(channel)

        harness.engine.receive(Self.datagram(nomination, from: attacker), on: socket)
        #expect(peer.selectedPath?.remote == other, "the replay from elsewhere moves nothing")
        #expect(try Harness.datagrams(channel).isEmpty, "and is not answered")

        harness.engine.receive(Self.datagram(nomination, from: other), on: socket)
        let answers = try Harness.datagrams(channel)
        #expect(answers.count == 1 && answers.first?.remoteAddress == other, "the same request on its own path is a retransmission")
    }

    @Test("once the selected ICE-TCP connection closes, a UDP check without USE-CANDIDATE selects UDP")
    func tcpPathClosed() throws {
        let harness = try Harness()
        let (socket, _) = try harness.udpSocket()
        let peer = try harness.peer()
        let tcp = try harness.connectTCP()
        try tcp.writeInbound(tcp.allocator.buffer(bytes: Harness.framed(Harness.check(for: peer, useCandidate: true))))
        #expect(peer.selectedPath?.transport == .tcp)
        let udp = try SocketAddress(ipAddress: "192.0.2.1", port: 5000)
        harness.engine.receive(Self.datagram(Harness.check(for: peer), from: udp), on: socket)
        #expect(peer.selectedPath?.transport == .tcp, "a nominated pair does not move without USE-CANDIDATE")
        try tcp.close().wait()
        harness.settle()
        #expect(peer.selectedPath == nil)
        harness.engine.receive(Self.datagram(Harness.check(for: peer), from: udp), on: socket)
        #expect(peer.selectedPath?.transport == .udp && peer.selectedPath?.remote == udp)
    }
}

/// An unauthenticated request may come from a spoofed address: the 401 for an unknown USERNAME
/// is never larger than the request that asked for it (no reflection amplification).
struct MediaEngineUnknownUsernameTests {
    typealias Harness = EmbeddedMediaEngine

    @Test("a real check for a forgotten ufrag gets its 401; a small request with an unknown USERNAME gets nothing")
    func noAmplification() throws {
        let harness = try Harness()
        let (socket, channel) = try harness.udpSocket()
        let forgotten = try harness.peer("gone")
        forgotten.close()
        let source = try SocketAddress(ipAddress: "192.0.2.7", port: 5000)
        let check = Harness.check(for: forgotten)
        harness.engine.receive(MediaEngineSelectionTests.datagram(check, from: source), on: socket)
        let answers = try Harness.datagrams(channel)
        #expect(answers.count == 1)
        let reply = try #require(answers.first.map { Array($0.data.readableBytesView) })
        #expect(reply.count <= check.count)
        #expect(try STUNMessage(parsing: reply).errorCode?.code == 401)

        var small = STUNMessageBuilder(type: .bindingRequest, transactionID: .random())
        try small.appendUsername("x:y")
        let tiny = small.finish(fingerprint: false)
        harness.engine.receive(MediaEngineSelectionTests.datagram(tiny, from: source), on: socket)
        #expect(try Harness.datagrams(channel).isEmpty, "a \(tiny.count)-byte request is not answered with a larger 401")
    }
}
