import NIOCore

/// One bound UDP socket of the media port: the IPv4 one, the IPv6 one (`IPV6_V6ONLY`, so IPv4
/// sources never arrive v4-mapped), or the one socket of a specific `--host`.
final class MediaUDPSocket: @unchecked Sendable {
    let channel: any Channel
    /// Written to during the current read burst and not flushed yet.
    var needsFlush = false

    init(channel: any Channel) { self.channel = channel }

    var localAddress: SocketAddress? { channel.localAddress }
}

/// Hands datagrams to the engine and batches the writes they cause into one flush per read burst.
final class MediaChannelHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let engine: MediaEngine
    let socket: MediaUDPSocket
    private var burst = MediaEngine.ReadBurst()

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
        burst.end(engine)
        context.fireChannelInactive()
    }

    /// An error the socket reported (a refused send, an ICMP error): counted; the socket keeps serving.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        MediaDropReason.udpSendFailed.count()
    }
}
