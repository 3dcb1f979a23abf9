public import NIOCore
import NIOPosix

extension PipeTransport {
    /// Binds a UDP socket on `eventLoop` (a media worker's) for one end of a pipe. It refuses
    /// everything until `connect(remote:keys:)`.
    /// - Parameters:
    ///   - host: an IP address (or a name, resolved) to bind; not a wildcard when the other end
    ///     checks the source of what it receives against the address it was given.
    ///   - port: 0 picks one (`localAddress` tells which).
    public static func open(host: String = "127.0.0.1", port: Int = 0, on eventLoop: any EventLoop) async throws -> PipeTransport {
        let address = try (try? SocketAddress(ipAddress: host, port: port)) ?? SocketAddress.makeAddressResolvingHost(host, port: port)
        let handler = PipeChannelHandler()
        // No SO_REUSEADDR: a port in use must fail the bind, not share its datagrams.
        return try await DatagramBootstrap(group: eventLoop)
            .channelOption(.maxMessagesPerRead, value: 32)
            .channelOption(.socketOption(.so_rcvbuf), value: 4 << 20)
            .channelOption(.socketOption(.so_sndbuf), value: 4 << 20)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: maximumDatagramLength))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler) }
            }
            .bind(to: address)
            .flatMapThrowing { channel in
                // On the loop as the bind completes, before the first read.
                guard let local = channel.localAddress else {
                    channel.close(promise: nil)
                    throw ChannelError.unknownLocalAddress
                }
                let pipe = PipeTransport(channel: channel, localAddress: local)
                handler.pipe = pipe
                return pipe
            }
            .get()
    }
}

/// Hands a pipe's datagrams to it. Holds the pipe until the socket closes.
final class PipeChannelHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    var pipe: PipeTransport?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let pipe else { return MediaDropReason.pipeUnknownSource.count() }
        pipe.receive(unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        pipe = nil
        context.fireChannelInactive()
    }

    /// An error the socket reported (a refused send): counted; the socket keeps serving.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        pipe?.countNotSent(.udpSendFailed)
    }
}
