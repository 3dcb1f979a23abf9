import NIOCore

/// One bound UDP socket of the media port: the IPv4 one, the IPv6 one (`IPV6_V6ONLY`, so IPv4
/// sources never arrive v4-mapped), or the one socket of a specific `--host`.
final class MediaUDPSocket: @unchecked Sendable {
    let channel: any Channel
    /// SRTP and SRTCP go out through it, straight on the socket; nil when the engine does not
    /// hold the socket's descriptor (a test's channel): then NIO sends everything.
    let batch: UDPSendBatch?
    /// Written to during the current read burst and not flushed yet.
    var needsFlush = false

    init(channel: any Channel, descriptor: CInt? = nil) {
        self.channel = channel
        batch = descriptor.map(UDPSendBatch.init(descriptor:))
    }

    /// Sends what the batch holds and flushes NIO's queue (STUN, DTLS, and what the kernel
    /// could not take at once). Call outside the handling of a packet: a flush may close the
    /// channel and call back in.
    func flush() {
        needsFlush = false
        batch?.send(queueingOn: channel)
        channel.flush()
    }

    var localAddress: SocketAddress? { channel.localAddress }
}

/// Hands datagrams to the engine and batches the writes they cause into one flush per read burst.
final class MediaChannelHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let engine: MediaEngine
    let socket: MediaUDPSocket
    private let burst = MediaEngine.ReadBurst()

    init(engine: MediaEngine, socket: MediaUDPSocket) {
        self.engine = engine
        self.socket = socket
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        burst.begin(engine)
        engine.receive(unwrapInboundIn(data), on: socket)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        burst.end(engine)
    }

    func channelInactive(context: ChannelHandlerContext) {
        socket.batch?.isClosed = true
        burst.end(engine)
        context.fireChannelInactive()
    }

    /// An error the socket reported (a refused send, an ICMP error): counted; the socket keeps serving.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        MediaDropReason.udpSendFailed.count()
    }
}
