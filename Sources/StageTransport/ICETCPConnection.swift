import NIOCore

/// One accepted ICE-TCP connection (RFC 6544 passive candidate): it carries RFC 4571 frames
/// for exactly one peer, the one named by the first Binding request that verified on it.
/// Lives on the media engine's event loop.
final class ICETCPConnection: @unchecked Sendable {
    let channel: any Channel
    let remote: SocketAddress
    /// Set by the first verified Binding request; a connection without one is unauthenticated.
    weak var peer: MediaPeer?
    private(set) var isAuthenticated = false
    /// Closing was asked for: frames still in the read buffer are not processed.
    var isClosing = false
    /// Written to during the current read burst and not flushed yet.
    var needsFlush = false
    /// Closes the connection if it has not authenticated in time.
    var authenticationDeadline: Scheduled<Void>?
    var reader: RFC4571StreamReader

    init(channel: any Channel, remote: SocketAddress, maximumFrameLength: Int) {
        self.channel = channel
        self.remote = remote
        reader = RFC4571StreamReader(maximumFrameLength: maximumFrameLength, allocator: channel.allocator)
    }

    /// Binds the connection to `peer` on its first verified request.
    /// - Returns: false when it already belongs to another peer.
    func authenticate(as peer: MediaPeer) -> Bool {
        if isAuthenticated { return self.peer === peer }
        isAuthenticated = true
        self.peer = peer
        authenticationDeadline?.cancel()
        authenticationDeadline = nil
        return true
    }

    var path: MediaPath { MediaPath(local: .tcp(self), remote: remote) }
}

/// Hands a connection's bytes to the engine (frames are cut in place) and tells it when the
/// connection ends.
final class ICETCPHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    let engine: MediaEngine
    let connection: ICETCPConnection

    init(engine: MediaEngine, connection: ICETCPConnection) {
        self.engine = engine
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        engine.beginRead()
        engine.receive(&bytes, on: connection)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        engine.endRead()
    }

    func channelInactive(context: ChannelHandlerContext) {
        engine.connectionClosed(connection)
        // A channel closed during its own read gets no channelReadComplete: end the burst here
        // so the writes it caused are flushed (ending a burst early only flushes sooner).
        engine.endRead()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset or a broken pipe: the connection is over (channelInactive follows).
        context.close(promise: nil)
    }
}
