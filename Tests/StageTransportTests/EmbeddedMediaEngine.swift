import NIOCore
import NIOEmbedded
@testable import StageTransport
import StageWire

/// A media engine on an `EmbeddedEventLoop`, its ICE-TCP connections and UDP sockets on
/// `EmbeddedChannel`s: every read, flush and close happens when the test says, in the order it
/// says, so re-entrance and bookkeeping can be checked exactly. Use from one thread (no await).
final class EmbeddedMediaEngine {
    let loop = EmbeddedEventLoop()
    let engine: MediaEngine

    init(limits: ICETCPLimits = ICETCPLimits()) throws {
        engine = MediaEngine(eventLoop: loop, dtlsContext: try DTLSContext(certificate: DTLSCertificate()))
        engine.tcpLimits = limits
    }

    /// A peer connection the engine answers checks for; DTLS server, so a check starts nothing.
    func peer(_ id: String = "peer") throws -> MediaPeer {
        let peer = try MediaPeer(id: id, engine: engine, dtlsRole: .server, remoteFingerprint: [UInt8](repeating: 0, count: 32))
        engine.register(peer)
        return peer
    }

    /// An accepted, active ICE-TCP connection from `ip`:`port`, with `handlers` in its pipeline
    /// before the engine's.
    func connectTCP(from ip: String = "192.0.2.1", port: Int = 40000, handlers: [any ChannelHandler] = []) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(loop: loop)
        let remote = try SocketAddress(ipAddress: ip, port: port)
        channel.remoteAddress = remote
        try channel.pipeline.syncOperations.addHandlers(handlers)
        try engine.accept(channel)
        try channel.connect(to: remote).wait()
        return channel
    }

    /// A UDP socket of the media port.
    func udpSocket() throws -> (MediaUDPSocket, EmbeddedChannel) {
        let channel = EmbeddedChannel(loop: loop)
        let socket = MediaUDPSocket(channel: channel)
        try channel.pipeline.syncOperations.addHandler(MediaChannelHandler(engine: engine, socket: socket))
        engine.udpSockets.append(socket)
        return (socket, channel)
    }

    /// Runs what was deferred to the next event loop turn (closes), and what that deferred.
    func settle() {
        loop.run()
        loop.run()
    }

    /// A controlling agent's Binding request for `peer` (RFC 8445 §7.2.2), integrity-protected.
    static func check(for peer: MediaPeer, useCandidate: Bool = false, id: STUNTransactionID = .random()) -> [UInt8] {
        var builder = STUNMessageBuilder(type: .bindingRequest, transactionID: id)
        try? builder.appendUsername("\(peer.credentials.ufrag):client")
        builder.appendPriority(0x6E00_00FF)
        builder.appendICEControlling(tieBreaker: 42)
        if useCandidate { builder.appendUseCandidate() }
        return builder.finish(integrityKey: STUNMessage.shortTermKey(password: peer.credentials.password), hmacSHA1: MediaEngine.hmacSHA1)
    }

    /// `packet` with its RFC 4571 LENGTH.
    static func framed(_ packet: [UInt8]) -> [UInt8] {
        [UInt8(packet.count >> 8), UInt8(packet.count & 0xFF)] + packet
    }

    /// The STUN messages flushed to an ICE-TCP client so far (each write is one frame).
    static func stunFrames(_ channel: EmbeddedChannel) throws -> [STUNMessage] {
        var messages: [STUNMessage] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            let bytes = Array(buffer.readableBytesView)
            messages.append(try STUNMessage(parsing: Array(bytes.dropFirst(RFC4571Scanner.prefixLength))))
        }
        return messages
    }

    /// The datagrams flushed from a UDP socket so far, with their destinations.
    static func datagrams(_ channel: EmbeddedChannel) throws -> [AddressedEnvelope<ByteBuffer>] {
        var sent: [AddressedEnvelope<ByteBuffer>] = []
        while let envelope = try channel.readOutbound(as: AddressedEnvelope<ByteBuffer>.self) { sent.append(envelope) }
        return sent
    }
}

/// An outbound handler that, the first times something is written, delivers the next of
/// `reads` to the pipeline from inside the write: what NIO can do when a write or flush in one
/// connection's handling makes it drain a socket.
final class ReadOnWrite: ChannelOutboundHandler, @unchecked Sendable {
    typealias OutboundIn = ByteBuffer
    var reads: [[UInt8]]

    init(reads: [[UInt8]]) { self.reads = reads }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        context.write(data, promise: promise)
        guard !reads.isEmpty else { return }
        let bytes = reads.removeFirst()
        context.pipeline.syncOperations.fireChannelRead(NIOAny(context.channel.allocator.buffer(bytes: bytes)))
    }
}
