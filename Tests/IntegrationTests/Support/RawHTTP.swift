import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// One HTTP/1.1 request over a plain NIO connection to an IP address, IPv6 included (Linux
/// Foundation's URLSession refuses `http://[::1]:…` URLs): the status and body of the answer.
enum RawHTTP {
    struct Response {
        var status: Int
        var body: String
        /// Header fields by lowercased name (the last of a repeated one).
        var headers: [String: String] = [:]
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func request(_ method: String, ip: String, port: Int, path: String, headers: [String: String] = [:],
                        body: String = "") async throws -> Response {
        let received = Received()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Collector(received: received)) }
            }
            .connect(to: SocketAddress(ipAddress: ip, port: port)).get()
        let host = ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        try await channel.writeAndFlush(channel.allocator.buffer(string: head + "\r\n" + body))
        try await channel.closeFuture.get()
        let text = String(decoding: received.bytes, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n"), let statusText = text.split(separator: " ").dropFirst().first,
              let status = Int(statusText) else { throw Failure(description: "not an HTTP answer: \(text.prefix(200))") }
        var fields: [String: String] = [:]
        for line in text[..<split.lowerBound].split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, body: String(text[split.upperBound...]), headers: fields)
    }

    private final class Received: Sendable {
        private let state = Mutex<[UInt8]>([])
        func append(_ bytes: some Sequence<UInt8>) { state.withLock { $0 += bytes } }
        var bytes: [UInt8] { state.withLock { $0 } }
    }

    private final class Collector: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        let received: Received
        init(received: Received) { self.received = received }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { received.append(unwrapInboundIn(data).readableBytesView) }
    }
}
