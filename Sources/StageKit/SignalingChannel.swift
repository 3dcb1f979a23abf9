import Foundation
import Logging
import NIOCore
import StageProtocol
import WSClient

/// The client end of the signaling WebSocket: frames out from a queue, decoded messages in
/// through `MainActorInbox` to the `deliver` handler. It knows nothing about stages; `Stage`
/// gives the messages meaning.
final class SignalingChannel: Sendable {
    enum Event: Sendable {
        case message(ServerMessage)
        /// The socket ended; `error` says why when it was not a clean close.
        case closed(StageError?)
    }

    /// Frames to send; messages are encoded by the writer task, off the caller's actor.
    private let outgoing: AsyncStream<Outgoing>.Continuation

    enum Outgoing: Sendable {
        case message(ClientMessage)
        case text(String)
    }
    private let task: Task<Void, Never>

    /// Connects to `url`; every event is handed to `deliver` on the main actor, in order.
    init(url: String, logger: Logger = Logger(label: "proscenium.stagekit"),
         deliver: @escaping @MainActor @Sendable (Event) -> Void) {
        let (outgoingStream, outgoing) = AsyncStream.makeStream(of: Outgoing.self)
        self.outgoing = outgoing
        let inbox = MainActorInbox.shared
        task = Task {
            let codec = SignalCodec()
            do {
                let configuration = WebSocketClientConfiguration(maxFrameSize: ProtocolVersion.maxMessageBytes, autoPing: .disabled)
                try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) { inbound, outbound, _ in
                    let writer = Task {
                        for await item in outgoingStream {
                            let text = switch item {
                            case .message(let message): codec.encode(message)
                            case .text(let raw): raw
                            }
                            try? await outbound.write(.text(text))
                        }
                        try? await outbound.close(.normalClosure, reason: nil)
                    }
                    defer { writer.cancel() }
                    for try await frame in inbound.messages(maxSize: ProtocolVersion.maxMessageBytes) {
                        guard case .text(let text) = frame, let message = try? codec.decodeServer(text) else {
                            logger.warning("ignoring an unreadable signaling frame")
                            continue
                        }
                        inbox.post { deliver(.message(message)) }
                    }
                }
                inbox.post { deliver(.closed(nil)) }
            } catch {
                let failure = StageError(code: .connectionFailed, message: "signaling socket \(url): \(error)")
                inbox.post { deliver(.closed(failure)) }
            }
        }
    }

    func send(_ message: ClientMessage) {
        outgoing.yield(.message(message))
    }

    /// Sends a text frame as is (tests use it to send malformed frames).
    func sendText(_ text: String) {
        outgoing.yield(.text(text))
    }

    /// Closes the socket after the queued frames are written.
    func close() { outgoing.finish() }

    deinit {
        outgoing.finish()
        task.cancel()
    }
}
