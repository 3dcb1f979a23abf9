import Foundation
import Logging
import NIOCore
import NIOSSL
import StageProtocol
import StageTLS
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

    /// Connects to `url` (`ws://` or `wss://`); every event is handed to `deliver` on the main actor, in order.
    /// - Parameter tls: for `wss://`, the CA roots to trust.
    init(url: String, tls: StageTLSConfiguration = .systemRoots, logger: Logger = Logger(label: "proscenium.stagekit"),
         deliver: @escaping @MainActor @Sendable (Event) -> Void) {
        let (outgoingStream, outgoing) = AsyncStream.makeStream(of: Outgoing.self)
        self.outgoing = outgoing
        let inbox = MainActorInbox.shared
        task = Task {
            let codec = SignalCodec()
            do {
                let (configuration, tlsConfiguration) = try Self.configuration(url: url, tls: tls)
                try await WebSocketClient.connect(url: url, configuration: configuration, tlsConfiguration: tlsConfiguration,
                                                  logger: logger) { inbound, outbound, _ in
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
                let reason = StageTLSError.classify(error, host: Self.hostAndPort(url), trust: tls).map { "\($0)" } ?? "\(error)"
                let failure = StageError(code: .connectionFailed, message: "signaling socket \(url): \(reason)")
                inbox.post { deliver(.closed(failure)) }
            }
        }
    }

    /// The WebSocket settings for `url`, and for `wss://` the TLS settings.
    ///
    /// WSClient sends the URL's host as SNI, which NIOSSL refuses for an IP address (RFC 6066
    /// forbids it). For an IP address URL the SNI is a name under `.invalid` (RFC 6761), which no
    /// CA can certify; NIOSSL then accepts the certificate only through an IP address entry that
    /// matches the address connected to, as it would without SNI.
    static func configuration(url: String, tls: StageTLSConfiguration) throws -> (WebSocketClientConfiguration, TLSConfiguration?) {
        var configuration = WebSocketClientConfiguration(maxFrameSize: ProtocolVersion.maxMessageBytes, autoPing: .disabled)
        guard url.lowercased().hasPrefix("wss://") else { return (configuration, nil) }
        let host = URL(string: url)?.host ?? ""
        if StageTLSConfiguration.isIPAddress(host) { configuration.sniHostname = "ip-address.invalid" }
        return (configuration, try tls.makeClientConfiguration())
    }

    /// `host:port` of a WebSocket URL, for error messages.
    static func hostAndPort(_ url: String) -> String {
        guard let parsed = URL(string: url), let host = parsed.host else { return url }
        let port = parsed.port ?? (url.lowercased().hasPrefix("wss://") ? 443 : 80)
        return "\(host):\(port)"
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
