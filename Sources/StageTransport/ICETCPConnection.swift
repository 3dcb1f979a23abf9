import NIOCore

/// One accepted ICE-TCP connection (RFC 6544 passive candidate): it carries RFC 4571 frames
/// for exactly one peer, the one named by the first Binding request that verified on it.
/// Lives on the media engine's event loop.
final class ICETCPConnection: @unchecked Sendable {
    let channel: any Channel
    let remote: SocketAddress
    /// What the connection counts against while it is unauthenticated.
    let source: SourcePrefix
    /// Set by the first verified Binding request; a connection without one is unauthenticated.
    private(set) weak var peer: MediaPeer?
    private(set) var isAuthenticated = false
    /// Closing was asked for: frames still in the read buffer are not processed, nothing more
    /// is written, and the channel closes on the next event loop turn.
    var isClosing = false
    /// Written to during the current read burst and not flushed yet.
    var needsFlush = false
    /// Closes the connection if it has not authenticated in time.
    var authenticationDeadline: Scheduled<Void>?
    /// The last verified check on the connection, or the moment it stopped being its peer's
    /// selected path: it closes `ICETCPLimits.unselectedTimeout` after that unless selected.
    var lastUseful: NIODeadline = .now()
    var reader: RFC4571StreamReader
    /// The reader is working on this connection's bytes (frames are being handled).
    var isReading = false
    /// Bytes that arrived while `isReading` (NIO delivered a read from inside the handling of
    /// an earlier one): only appended here, and read once the outer read is done, so the
    /// reader's buffer is never touched twice at once.
    var reenteredBytes: ByteBuffer?

    init(channel: any Channel, remote: SocketAddress, source: SourcePrefix, maximumFrameLength: Int) {
        self.channel = channel
        self.remote = remote
        self.source = source
        reader = RFC4571StreamReader(maximumFrameLength: maximumFrameLength, allocator: channel.allocator)
    }

    /// Binds the connection to `peer`; the engine checks first that it is not bound yet.
    func markAuthenticated(as peer: MediaPeer) {
        isAuthenticated = true
        self.peer = peer
        authenticationDeadline?.cancel()
        authenticationDeadline = nil
    }

    var path: MediaPath { MediaPath(local: .tcp(self), remote: remote) }
}

/// Hands a connection's bytes to the engine (frames are cut in place) inside a read burst of
/// its own: the burst begins at the first read and ends at `channelReadComplete`, or at
/// `channelInactive` when the channel closes before that. The engine's bookkeeping of the
/// connection ending is tied to the channel's `closeFuture`, not to this handler.
final class ICETCPHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    let engine: MediaEngine
    let connection: ICETCPConnection
    private let burst = MediaEngine.ReadBurst()

    init(engine: MediaEngine, connection: ICETCPConnection) {
        self.engine = engine
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        burst.begin(engine)
        var bytes = unwrapInboundIn(data)
        engine.receive(&bytes, on: connection)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        burst.end(engine)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // A channel closed during its own read gets no channelReadComplete: end its burst (and
        // only its own) here, so the engine's count of open bursts stays right.
        burst.end(engine)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset or a broken pipe: the connection is over (its closeFuture tells the engine).
        context.close(promise: nil)
    }
}
