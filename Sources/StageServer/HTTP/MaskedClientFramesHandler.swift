import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Refuses WebSocket frames a client sent unmasked: RFC 6455 §5.1 says a server MUST close the
/// connection on one, and §7.4.1 gives 1002 (protocol error) as the code. NIO's frame decoder
/// accepts both, so this sits right behind it and answers a close frame, then closes.
final class MaskedClientFramesHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        let frame = unwrapInboundIn(data)
        guard frame.maskKey != nil else {
            refused = true
            var payload = context.channel.allocator.buffer(capacity: 40)
            payload.write(webSocketErrorCode: .protocolError)
            payload.writeString("client frames must be masked")
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in loopBound.value.close(promise: nil) }
            return
        }
        context.fireChannelRead(data)
    }

    /// Waits at the end of an HTTP pipeline for a WebSocket upgrade to complete (the frame
    /// decoder is then in place and buffered bytes not yet read on), puts a
    /// `MaskedClientFramesHandler` right behind the decoder, and leaves.
    final class Installer: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.fireChannelRead(data)
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case .upgradeComplete? = event as? HTTPServerUpgradeEvents {
                let operations = context.pipeline.syncOperations
                if let decoder = try? operations.context(handlerType: ByteToMessageHandler<WebSocketFrameDecoder>.self) {
                    try? operations.addHandler(MaskedClientFramesHandler(), position: .after(decoder.handler))
                }
                operations.removeHandler(context: context, promise: nil)
            }
            context.fireUserInboundEventTriggered(event)
        }
    }
}
