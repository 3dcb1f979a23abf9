import NIOCore
import NIOPosix
import StageWire
import Synchronization

/// The packets a test socket received, for a test to wait on.
final class PacketInbox: Sendable {
    private let state = Mutex<(packets: [[UInt8]], closed: Bool)>(([], false))

    func push(_ packet: [UInt8]) { state.withLock { $0.packets.append(packet) } }
    func markClosed() { state.withLock { $0.closed = true } }
    var isClosed: Bool { state.withLock { $0.closed } }

    /// The oldest packet not yet taken, waiting up to `timeout`; nil on timeout or once closed and empty.
    func next(timeout: Duration = .seconds(5)) async -> [UInt8]? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let (packet, closed) = state.withLock { state -> ([UInt8]?, Bool) in
                state.packets.isEmpty ? (nil, state.closed) : (state.packets.removeFirst(), false)
            }
            if let packet { return packet }
            if closed { return nil }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }

    /// Waits until the socket is closed by the other side.
    func waitClosed(timeout: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !isClosed, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        return isClosed
    }
}

/// How a hand-driven test peer reaches the media port: datagrams, or RFC 4571 frames over TCP.
protocol TestPacketTransport: Sendable {
    var inbox: PacketInbox { get }
    /// The local address the server sees.
    var localAddress: SocketAddress? { get }
    func send(_ packet: [UInt8])
    func close() async
}

/// RFC 4571 frames over one TCP connection (ICE-TCP, active side).
final class FramedTCPTransport: TestPacketTransport, @unchecked Sendable {
    let channel: any Channel
    let inbox: PacketInbox

    private init(channel: any Channel, inbox: PacketInbox) {
        self.channel = channel
        self.inbox = inbox
    }

    static func connect(to address: SocketAddress) async throws -> FramedTCPTransport {
        let inbox = PacketInbox()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(FrameHandler(inbox: inbox)) }
            }
            .connect(to: address).get()
        return FramedTCPTransport(channel: channel, inbox: inbox)
    }

    var localAddress: SocketAddress? { channel.localAddress }

    func send(_ packet: [UInt8]) {
        guard let framed = try? RFC4571Framer.frame(packet) else { return }
        sendRaw(framed)
    }

    /// Bytes as they are, without framing (for garbage and oversized frames).
    func sendRaw(_ bytes: [UInt8]) {
        channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: nil)
    }

    func close() async { try? await channel.close() }

    private final class FrameHandler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        let inbox: PacketInbox
        var framer = RFC4571Framer()

        init(inbox: PacketInbox) { self.inbox = inbox }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            guard let frames = try? framer.frames(after: buffer.readableBytesView) else { return context.close(promise: nil) }
            for frame in frames { inbox.push(frame) }
        }

        func channelInactive(context: ChannelHandlerContext) { inbox.markClosed() }
        func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
    }
}

/// Datagrams from one UDP socket to one remote address.
final class UDPTransport: TestPacketTransport, @unchecked Sendable {
    let channel: any Channel
    let remote: SocketAddress
    let inbox: PacketInbox

    private init(channel: any Channel, remote: SocketAddress, inbox: PacketInbox) {
        self.channel = channel
        self.remote = remote
        self.inbox = inbox
    }

    /// A socket on the loopback of `remote`'s family.
    static func open(to remote: SocketAddress) async throws -> UDPTransport {
        let inbox = PacketInbox()
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(DatagramHandler(inbox: inbox)) }
            }
            .bind(host: remote.protocol == .inet6 ? "::1" : "127.0.0.1", port: 0).get()
        return UDPTransport(channel: channel, remote: remote, inbox: inbox)
    }

    var localAddress: SocketAddress? { channel.localAddress }

    func send(_ packet: [UInt8]) {
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: remote, data: channel.allocator.buffer(bytes: packet)), promise: nil)
    }

    func close() async { try? await channel.close() }

    private final class DatagramHandler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let inbox: PacketInbox
        init(inbox: PacketInbox) { self.inbox = inbox }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            inbox.push(Array(unwrapInboundIn(data).data.readableBytesView))
        }
    }
}
