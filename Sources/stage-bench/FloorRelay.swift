import Foundation
import NIOCore
import NIOPosix
import StageTransport

/// The floor a forwarding server cannot go below: for each incoming packet one libsrtp
/// unprotect, and for each copy one protect and one UDP send (batched per read burst, as
/// the SFU does). No ICE, DTLS, routing or header rewriting. Runs alone on its own thread,
/// whose CPU time is the figure.
final class FloorRelay: @unchecked Sendable {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let inbound: SRTPSession
    /// Publisher address → (outbound session, address) of every subscriber of it.
    var routes: [SocketAddress: [(session: SRTPSession, address: SocketAddress)]] = [:]

    init(publisherKeys: SRTPKeyingMaterial) throws {
        inbound = try SRTPSession(SRTPKeyingMaterial(profile: publisherKeys.profile, local: publisherKeys.remote, remote: publisherKeys.local))
    }

    func start() async throws -> SocketAddress {
        let channel = try await DatagramBootstrap(group: group)
            .channelOption(.maxMessagesPerRead, value: 32)
            .channelOption(.socketOption(.so_rcvbuf), value: 4 << 20)
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Handler(relay: self)) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let address = channel.localAddress else { throw BenchError("floor relay: no local address") }
        return address
    }

    /// CPU seconds of the relay's thread so far.
    func threadCPUSeconds() async throws -> Double {
        try await group.next().submit {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }.get()
    }

    func relay(_ envelope: AddressedEnvelope<ByteBuffer>, context: ChannelHandlerContext) {
        guard let targets = routes[envelope.remoteAddress] else { return }
        var data = envelope.data
        let length = data.withUnsafeMutableReadableBytes { bytes in (try? inbound.unprotectRTP(bytes, length: bytes.count)) ?? 0 }
        guard length > 0 else { return }
        data.withUnsafeReadableBytes { plain in
            let packet = UnsafeRawBufferPointer(rebasing: plain[0..<length])
            for target in targets {
                var out = context.channel.allocator.buffer(capacity: length + SRTPSession.maxTrailer)
                let written = out.writeWithUnsafeMutableBytes(minimumWritableBytes: length + SRTPSession.maxTrailer) { buffer -> Int in
                    buffer.copyMemory(from: packet)
                    return (try? target.session.protectRTP(buffer, length: length)) ?? 0
                }
                guard written > 0 else { continue }
                context.write(NIOAny(AddressedEnvelope(remoteAddress: target.address, data: out)), promise: nil)
            }
        }
    }

    final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let relay: FloorRelay
        init(relay: FloorRelay) { self.relay = relay }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { relay.relay(unwrapInboundIn(data), context: context) }
        func channelReadComplete(context: ChannelHandlerContext) { context.flush() }
    }
}
