import Foundation
import StageProtocol

/// The server's handle on one connected participant: who it is and its outbound queue.
/// Messages are encoded once by the sender and queued as text; a peer whose queue overflows
/// (a client that stopped reading) is closed rather than allowed to grow without bound.
final class SignalingPeer: Sendable {
    enum Outgoing: Sendable {
        /// Pre-encoded (a broadcast, encoded once for every receiver).
        case text(String)
        /// For this peer only: encoded by its writer task, outside the hub.
        case message(ServerMessage)
        /// Send this final text, then close the socket.
        case close(String)
    }

    static let queueLimit = 4096

    let connectionId: UInt64
    let participant: ParticipantDescriptor
    let sessionFacts: ClientDescription?
    /// nil for a participant without a socket (a WHIP publisher): nothing to tell it.
    private let outbox: AsyncStream<Outgoing>.Continuation?
    /// A WHIP publisher is a member without a signaling socket.
    var hasSocket: Bool { outbox != nil }

    init(connectionId: UInt64, participant: ParticipantDescriptor, client: ClientDescription?,
         outbox: AsyncStream<Outgoing>.Continuation?) {
        self.connectionId = connectionId
        self.participant = participant
        self.sessionFacts = client
        self.outbox = outbox
    }

    var participantId: String { participant.participantId }

    static func makeOutbox() -> (AsyncStream<Outgoing>, AsyncStream<Outgoing>.Continuation) {
        AsyncStream.makeStream(of: Outgoing.self, bufferingPolicy: .bufferingOldest(queueLimit))
    }

    func send(_ text: String) { enqueue(.text(text)) }

    func send(_ message: ServerMessage) { enqueue(.message(message)) }

    private func enqueue(_ item: Outgoing) {
        if case .dropped? = outbox?.yield(item) {
            ServerLog.signaling.warning("peer too slow, closing", metadata: ["participant": "\(participantId)"])
            outbox?.finish()
        }
    }

    /// Ends the queue without a final message: the socket closes normally once drained.
    func finish() { outbox?.finish() }

    /// Queues a final `disconnect` and ends the queue.
    func close(with text: String) {
        outbox?.yield(.close(text))
        outbox?.finish()
    }
}
