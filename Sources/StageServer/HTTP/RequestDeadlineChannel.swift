import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// Wraps the server's child channel so that a connection must deliver its first request head
/// (at most `maxHeadBytes`) and get an answer within `deadline`, or be closed with 408/431, and
/// so that bytes the HTTP parser refuses get a 400 and a close at once (RFC 9112 §2.2).
/// Hummingbird's own idle timeout starts only once a first request was parsed, so without this
/// an idle or trickling connection, or one whose bytes the HTTP parser refused, stayed open.
struct RequestDeadlineChannel<Inner: ServerChildChannel>: ServerChildChannel {
    let inner: Inner
    let deadline: TimeAmount
    let maxHeadBytes: Int
    /// Whether an upgrade to WebSocket gets `MaskedClientFramesHandler`.
    var refusesUnmaskedWebSocketFrames = false

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Inner.Value> {
        let front = FirstRequestDeadlineHandler(deadline: deadline, maxHeadBytes: maxHeadBytes)
        do {
            try channel.pipeline.syncOperations.addHandler(front)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        let boundFront = NIOLoopBound(front, eventLoop: channel.eventLoop)
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            // Right behind the request decoder, where its parse errors surface.
            let operations = channel.pipeline.syncOperations
            if let decoder = try? operations.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self) {
                try operations.addHandler(HTTPParseErrorHandler(front: boundFront.value), position: .after(decoder.handler))
            }
            if refusesUnmaskedWebSocketFrames { try operations.addHandler(MaskedClientFramesHandler.Installer()) }
            return value
        }
    }

    func handle(value: Inner.Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// `http1WebSocketUpgrade` with the first-request deadline of `RequestDeadlineChannel`, and
    /// unmasked client frames refused (`MaskedClientFramesHandler`).
    static func http1WebSocketUpgrade<Builder: HTTPResponderBuilder & _HB_SendableMetatype>(
        webSocketRouter: Builder, configuration: HTTP1WebSocketUpgradeChannel.Configuration, firstRequestDeadline: TimeAmount,
        maxHeadBytes: Int
    ) -> HTTPServerBuilder where Builder.Responder.Context: WebSocketRequestContext {
        let webSocketResponder = webSocketRouter.buildResponder()
        return .init { responder in
            RequestDeadlineChannel(inner: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder,
                                                                       configuration: configuration),
                                   deadline: firstRequestDeadline, maxHeadBytes: maxHeadBytes,
                                   refusesUnmaskedWebSocketFrames: true)
        }
    }
}

/// Sits before the HTTP codec and watches raw bytes until the first response goes out: closes
/// the connection (after a short 408 or 431) when the request head is not complete within
/// `maxHeadBytes` or nothing was answered within `deadline`. Passive afterwards.
final class FirstRequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    let deadline: TimeAmount
    let maxHeadBytes: Int
    private var headBytes = 0
    private var headComplete = false
    /// The last bytes of the head seen so far, to find "\r\n\r\n" across reads.
    private var tail: [UInt8] = []
    private var timer: Scheduled<Void>?
    private var done = false
    private var context: ChannelHandlerContext?

    init(deadline: TimeAmount, maxHeadBytes: Int) {
        self.deadline = deadline
        self.maxHeadBytes = maxHeadBytes
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { start(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        self.context = nil
    }

    /// The HTTP parser refused the bytes: a 400 if nothing was answered yet, and a close.
    func parserFailed() {
        guard let context else { return }
        if done { context.close(promise: nil) } else { refuse(context, status: "400 Bad Request") }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard timer == nil else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: deadline) {
            let (handler, context) = loopBound.value
            handler.refuse(context, status: "408 Request Timeout")
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !done && !headComplete {
            let buffer = unwrapInboundIn(data)
            headBytes += buffer.readableBytes
            tail = Array((tail + buffer.readableBytesView).suffix(buffer.readableBytes + 3))
            if tail.count >= 4, (0...(tail.count - 4)).contains(where: { tail[$0] == 13 && tail[$0 + 1] == 10 && tail[$0 + 2] == 13 && tail[$0 + 3] == 10 }) {
                headComplete = true
                tail = []
            } else if headBytes > maxHeadBytes {
                refuse(context, status: "431 Request Header Fields Too Large")
                return
            } else {
                tail = Array(tail.suffix(3))
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // The server answered: from here on Hummingbird's idle timeout and the WebSocket pings apply.
        if !done {
            done = true
            timer?.cancel()
        }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        context.fireChannelInactive()
    }

    fileprivate func refuse(_ context: ChannelHandlerContext, status: String) {
        guard !done else { return }
        done = true
        timer?.cancel()
        let text = "HTTP/1.1 \(status)\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(ByteBuffer(string: text))), promise: nil)
        context.close(promise: nil)
    }
}

/// Placed after the request decoder: its `HTTPParserError`s end the connection through the
/// front handler (which writes below the HTTP encoder), instead of being left unanswered.
final class HTTPParseErrorHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    let front: FirstRequestDeadlineHandler

    init(front: FirstRequestDeadlineHandler) { self.front = front }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError {
            front.parserFailed()
            return
        }
        context.fireErrorCaught(error)
    }
}
