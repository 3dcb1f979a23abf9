import NIOCore
import StageWire

/// One local transport of an ``ICEAgent`` (RFC 8445 §5.1.1 "base"): a UDP socket on a host
/// address, a TCP connection to one passive remote candidate (RFC 6544 §5, framed per RFC 4571),
/// or a TURN allocation (RFC 8656) reached over UDP or TCP. Touched on the agent's loop only.
final class ICEBase: @unchecked Sendable {
    enum Kind: Equatable {
        case udp
        case tcpActive
        case relay(ICETransportProtocol)
    }

    let id: Int
    let kind: Kind
    /// Our candidate on this base; a relay base has its relayed address once allocated.
    var candidate: ICECandidate
    var channel: (any Channel)?
    /// TCP: the passive candidate this connection goes to. Relay: the TURN server.
    var peer: SocketAddress?
    /// `peer` in STUN form (compared with the sources of answers).
    var peerAddress: STUNAddress?
    /// TCP: connecting now; what to write once it is up.
    var connecting = false
    var queued: [ByteBuffer] = []
    /// TCP: the RFC 4571 frames of the stream (at most one packet's worth of bytes each).
    var framer = RFC4571Framer(maximumFrameLength: 0xFFFF, bufferLimit: 256 * 1024)
    /// Relay: the allocation and its timer.
    var allocation: TURNAllocation?
    var turnTimer: Scheduled<Void>?
    /// Counted in the agent's gathering until allocated or failed (relay), or answered (STUN).
    var pendingGathering = false
    /// A relay base replaced by a newer allocation: closed once a pair on another base is selected.
    var retired = false
    var isClosed = false

    init(id: Int, kind: Kind, candidate: ICECandidate) {
        self.id = id
        self.kind = kind
        self.candidate = candidate
    }

    var isRelay: Bool {
        if case .relay = kind { true } else { false }
    }
}

/// Datagrams of a UDP base (host socket or TURN over UDP) to the agent.
final class ICEDatagramHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    weak var agent: ICEAgent?
    let base: Int

    init(agent: ICEAgent, base: Int) {
        self.agent = agent
        self.base = base
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        var buffer = envelope.data
        buffer.withUnsafeMutableReadableBytes { agent?.receiveDatagram($0, from: envelope.remoteAddress, base: base) }
    }

    /// ICMP port unreachable and similar: the socket keeps serving.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {}
}

/// Bytes of a TCP base (ICE-TCP or TURN over TCP) to the agent.
final class ICEStreamHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    weak var agent: ICEAgent?
    let base: Int

    init(agent: ICEAgent, base: Int) {
        self.agent = agent
        self.base = base
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        buffer.withUnsafeReadableBytes { agent?.receiveStream($0, base: base) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        agent?.streamClosed(base: base)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
