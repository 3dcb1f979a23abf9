import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The router's request context: Hummingbird's, the WebSocket upgrade's, and the client's
/// address (HLS viewer counts).
struct StageRequestContext: RequestContext, WebSocketRequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress
    }
}
