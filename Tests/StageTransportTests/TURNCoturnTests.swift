import Foundation
import StageWire
import Testing
@testable import StageTransport

/// ``TURNAllocation`` against a real TURN server: Debian's coturn, started by the test on
/// 127.0.0.1, over UDP and over TCP. A UDP echo socket plays the peer: the payload goes out
/// through the relay (Send indication, then ChannelData), the echo comes back through it (Data
/// indication, then ChannelData), then the allocation is refreshed and closed. If coturn cannot
/// be started the test fails with the reason; everything is bounded by timeouts and coturn is
/// terminated at the end, also on failure.
@Suite(.serialized) struct TURNCoturnTests {
    /// The client side: the allocation, its socket to coturn, the echo peer and a virtual clock
    /// offset (to reach refresh times without waiting minutes).
    final class Harness {
        var turn: TURNAllocation
        let server: TestSocket
        let serverPort: UInt16
        let echo: TestSocket
        let transport: TURNAllocation.Transport
        var clockOffset: Duration = .zero
        var events: [TURNAllocation.Event] = []
        /// What arrived from coturn, by kind: "stun" or "channelData" (RFC 8656 §12.5 split).
        var received: [String] = []
        var classifier = TURNStreamSplitter()

        init(transport: TURNAllocation.Transport, serverPort: UInt16) throws {
            self.transport = transport
            self.serverPort = serverPort
            turn = TURNAllocation(configuration: .init(
                username: CoturnProcess.username, password: CoturnProcess.password, transport: transport,
                initialRTO: .milliseconds(200)))
            server = transport == .udp ? try TestSocket.udp() : try TestSocket.tcp(connectingTo: serverPort)
            echo = try TestSocket.udp()
        }

        var now: ContinuousClock.Instant { ContinuousClock.now + clockOffset }
        var echoAddress: STUNAddress { STUNAddress(ip: .v4(0x7F00_0001), port: echo.localPort) }

        func handle(_ new: [TURNAllocation.Event]) throws {
            for event in new {
                if case .send(let bytes) = event {
                    try server.send(bytes, to: serverPort)
                } else {
                    events.append(event)
                }
            }
        }

        func classify(_ bytes: [UInt8]) {
            if transport == .udp {
                received.append(TURNChannelData.isChannelData(firstByte: bytes.first ?? 0) ? "channelData" : "stun")
                return
            }
            try? classifier.append(bytes)
            while let frame = try? classifier.nextFrame() {
                if case .channelData = frame { received.append("channelData") } else { received.append("stun") }
            }
        }

        /// Moves bytes until `done` holds for an event, or fails after `seconds`.
        @discardableResult
        func pump(_ what: String, seconds: Double = 10, until done: (TURNAllocation.Event) -> Bool) throws -> TURNAllocation.Event {
            let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
            while ContinuousClock.now < deadline {
                if let index = events.firstIndex(where: done) { return events.remove(at: index) }
                if let failure = events.first(where: { if case .failed = $0 { true } else { false } }) {
                    throw TestFailure("\(what): \(failure)")
                }
                if let (bytes, port) = try echo.receive(timeoutMilliseconds: 0) {
                    try echo.send(bytes, to: port) // the peer echoes to the relayed address
                }
                if let (bytes, _) = try server.receive(timeoutMilliseconds: 20) {
                    classify(bytes)
                    try handle(turn.receive(bytes, now: now))
                }
                if let next = turn.nextTimeout, next <= now { try handle(turn.tick(now: now)) }
            }
            throw TestFailure("\(what): no result within \(seconds) s; events \(events), state \(turn.state)")
        }
    }

    static func run(_ transport: TURNAllocation.Transport) throws {
        let port = try TestSocket.freePort()
        let base = UInt16(50_000 + Int(port) % 10_000)
        let coturn = try CoturnProcess(port: port, relayPorts: base ... base + 20)
        defer { coturn.stop() }
        do {
            try exercise(transport, port: port, coturn: coturn)
        } catch {
            throw TestFailure("\(transport): \(error)\n--- coturn log ---\n\(coturn.log.suffix(4000))")
        }
    }

    static func waitForListener(port: UInt16, coturn: CoturnProcess) throws {
        // Ready when a TCP connect succeeds (coturn opens UDP and TCP listeners together).
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            guard coturn.isRunning else { throw TestFailure("coturn exited at start") }
            if (try? TestSocket.tcp(connectingTo: port)) != nil { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TestFailure("coturn did not listen on 127.0.0.1:\(port) within 10 s")
    }

    static func exercise(_ transport: TURNAllocation.Transport, port: UInt16, coturn: CoturnProcess) throws {
        try waitForListener(port: port, coturn: coturn)
        let harness = try Harness(transport: transport, serverPort: port)

        // Allocate: 401 with REALM/NONCE, then the authenticated Allocate (RFC 8656 §7).
        try harness.handle(harness.turn.start(now: harness.now))
        let allocated = try harness.pump("allocate") { if case .allocated = $0 { true } else { false } }
        guard case .allocated(let relayed, let mapped, let lifetime) = allocated else { return }
        #expect(relayed.ip == .v4(0x7F00_0001))
        #expect(mapped?.ip == .v4(0x7F00_0001))
        #expect(mapped?.port == (transport == .udp ? harness.server.localPort : mapped?.port))
        #expect(lifetime > .zero)

        // Permission only: Send indication out, Data indication back (RFC 8656 §10, §11).
        let peer = harness.echoAddress
        try harness.handle(harness.turn.permit(peer, bindChannel: false, now: harness.now))
        try harness.pump("CreatePermission") { $0 == .permissionCreated(peer.ip) }
        let viaIndication = Array("through the relay by indication".utf8)
        let sendIndication = try harness.turn.wrap(viaIndication, to: peer)
        #expect(try STUNMessage(parsing: sendIndication).type == .sendIndication)
        try harness.server.send(sendIndication, to: port)
        try harness.pump("echo via Data indication") { $0 == .data(from: peer, payload: viaIndication) }
        #expect(!harness.received.contains("channelData"))

        // Channel: ChannelData out, ChannelData back (RFC 8656 §12).
        try harness.handle(harness.turn.permit(peer, now: harness.now))
        try harness.pump("ChannelBind") { $0 == .channelBound(peer: peer, channel: 0x4000) }
        let viaChannel = Array("through the relay by channel".utf8) + [1] // odd length: padding over TCP
        let channelData = try harness.turn.wrap(viaChannel, to: peer)
        #expect(TURNChannelData.isChannelData(firstByte: channelData[0]))
        try harness.server.send(channelData, to: port)
        try harness.pump("echo via ChannelData") { $0 == .data(from: peer, payload: viaChannel) }
        #expect(harness.received.last == "channelData")

        // Refresh: move the clock past lifetime − 60 s; Refresh, CreatePermission and ChannelBind go out.
        harness.clockOffset = lifetime - .seconds(59)
        try harness.handle(harness.turn.tick(now: harness.now))
        let refreshed = try harness.pump("Refresh") { if case .refreshed = $0 { true } else { false } }
        guard case .refreshed(let renewed) = refreshed else { return }
        #expect(renewed > .zero)
        // Still relaying after the refreshes.
        try harness.server.send(try harness.turn.wrap(viaChannel, to: peer), to: port)
        try harness.pump("echo after refresh") { $0 == .data(from: peer, payload: viaChannel) }

        // Close: Refresh with LIFETIME 0 (RFC 8656 §8).
        try harness.handle(harness.turn.close(now: harness.now))
        try harness.pump("close") { $0 == .closed }
        #expect(harness.turn.state == .closed)
    }

    @Test("coturn over UDP: allocate, permission, Send/Data indications, ChannelData, refresh, close")
    func coturnOverUDP() throws {
        try Self.run(.udp)
    }

    @Test("coturn over TCP: allocate, permission, Send/Data indications, padded ChannelData, refresh, close")
    func coturnOverTCP() throws {
        try Self.run(.tcp)
    }
}
