import Foundation
import StageControl
@testable import StageKit
import StageProtocol

/// A signaling socket driven by hand: send any text, read what the server answers.
@MainActor
final class RawSocket {
    private(set) var channel: SignalingChannel!
    private(set) var received: [ServerMessage] = []
    private(set) var closed = false

    init(url: String) {
        channel = SignalingChannel(url: url) { [weak self] event in
            switch event {
            case .message(let message): self?.received.append(message)
            case .closed: self?.closed = true
            }
        }
    }

    func send(_ message: ClientMessage) { channel.send(message) }
    func sendText(_ text: String) { channel.sendText(text) }

    /// Joins and returns the `joined` answer (nil when refused).
    func join(token: String) async -> ServerMessage.Joined? {
        send(.join(.init(token: token)))
        guard case .joined(let joined)? = await next(where: { if case .joined = $0 { true } else if case .error = $0 { true } else { false } }) else {
            return nil
        }
        return joined
    }

    /// The first received message matching `predicate`, removed from the buffer; waits up to 15 s
    /// (5 s was once too short for a `publishState` while a CI-like run's parallel tests kept the
    /// main actor busy; only a failing wait is longer).
    func next(where predicate: (ServerMessage) -> Bool) async -> ServerMessage? {
        await waitUntil(.seconds(15)) { self.received.contains(where: predicate) || self.closed }
        guard let index = received.firstIndex(where: predicate) else { return nil }
        return received.remove(at: index)
    }

    func nextError() async -> ServerMessage.SignalError? {
        guard case .error(let error)? = await next(where: { if case .error = $0 { true } else { false } }) else { return nil }
        return error
    }

    /// Ping round trip: proves the server still serves this socket.
    func isServed(nonce: Int = 7) async -> Bool {
        send(.ping(.init(nonce: nonce)))
        return await next(where: { $0 == .pong(.init(nonce: nonce)) }) != nil
    }

    func waitClosed() async -> Bool {
        await waitUntil(.seconds(5)) { self.closed }
        return closed
    }
}

/// One server for a whole test process, started on first use.
enum SharedServer {
    @MainActor static var started: LocalStageServer?

    @MainActor static func get() async throws -> LocalStageServer {
        if let started { return started }
        let server = try LocalStageServer()
        try await server.start()
        started = server
        return server
    }
}
