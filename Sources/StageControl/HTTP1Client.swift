import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import StageTLS

/// A small HTTP/1.1 client on SwiftNIO: one request per connection (`Connection: close`),
/// TLS through NIOSSL for `https://` URLs, trusting the system roots or a CA file.
///
/// It replaces `URLSession`, because swift-corelibs-foundation on Linux runs on libcurl and
/// cannot be told to trust a CA file: its `EasyHandle.setCARootBundlePath()` reads the
/// `URLSessionCertificateAuthorityInfoFile` variable only under `#if os(Android)` and otherwise
/// sets libcurl's CA bundle to a fixed list of system paths; the server-trust delegate challenge
/// needs `SecTrust`, which Linux lacks. The control plane is a few small JSON calls, so a new
/// connection per call costs nothing that matters.
struct HTTP1Client: Sendable {
    struct Response: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
    }

    var trust: StageTLSConfiguration
    /// Limit for connecting, the TLS handshake, sending and reading the whole answer.
    var timeout: Duration = .seconds(30)
    var maxBodyBytes = 16 << 20

    /// Sends one request and reads the whole answer.
    /// - Parameter headers: sent as given (include `host`); `content-length` and `connection` are added.
    /// - Throws: `HTTP1ClientError` (bad URL, timeout, malformed answer), `StageTLSError` for TLS
    ///   failures, or the connection's own error (refused, unreachable).
    func send(method: String, url: URL, headers: [(name: String, value: String)], body: [UInt8]) async throws -> Response {
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            throw HTTP1ClientError(reason: "URL \(url): the scheme must be http or https")
        }
        guard let rawHost = url.host, !rawHost.isEmpty else { throw HTTP1ClientError(reason: "URL \(url): no host") }
        let host = rawHost.hasPrefix("[") && rawHost.hasSuffix("]") ? String(rawHost.dropFirst().dropLast()) : rawHost
        let secure = scheme == "https"
        let port = url.port ?? (secure ? 443 : 80)
        let target = "\(host):\(port)"
        let context = try secure ? NIOSSLContext(configuration: trust.makeClientConfiguration()) : nil
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?" + query }
        var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: path)
        for header in headers { head.headers.add(name: header.name, value: header.value) }
        head.headers.replaceOrAdd(name: "content-length", value: "\(body.count)")
        head.headers.replaceOrAdd(name: "connection", value: "close")
        let request = head
        do {
            return try await withDeadline(timeout, what: "\(method) \(url)") {
                try await exchange(host: host, port: port, context: context, head: request, body: body)
            }
        } catch {
            throw StageTLSError.classify(error, host: target, trust: trust) ?? error
        }
    }

    private func exchange(host: String, port: Int, context: NIOSSLContext?, head: HTTPRequestHead, body: [UInt8]) async throws -> Response {
        // SNI and name checks use a DNS name; for an IP address NIOSSL matches the certificate's
        // IP entries against the connected address.
        let serverHostname = StageTLSConfiguration.isIPAddress(host) ? nil : host
        let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(10))
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let context {
                            try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverHostname))
                        }
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw HTTP1ClientError(reason: "cannot connect to \(host):\(port): \(error)")
        }
        let limit = maxBodyBytes
        return try await channel.executeThenClose { inbound, outbound in
            // One write for the whole request; a server that answers and closes as soon as it
            // has the body may make the last part's write fail, and its answer is still there.
            var writeError: (any Error)?
            do {
                try await outbound.write(contentsOf: [.head(head), .body(.byteBuffer(ByteBuffer(bytes: body))), .end(nil)])
            } catch {
                writeError = error
            }
            var response: Response?
            for try await part in inbound {
                switch part {
                case .head(let head):
                    response = Response(status: Int(head.status.code), headers: head.headers, body: [])
                case .body(let buffer):
                    guard response != nil else { throw HTTP1ClientError(reason: "\(host):\(port): body before the status line") }
                    guard (response?.body.count ?? 0) + buffer.readableBytes <= limit else {
                        throw HTTP1ClientError(reason: "\(host):\(port): answer larger than \(limit) bytes")
                    }
                    response?.body.append(contentsOf: buffer.readableBytesView)
                case .end:
                    if let response { return response }
                }
            }
            throw HTTP1ClientError(reason: "\(host):\(port): the connection closed before a complete answer"
                                   + (writeError.map { " (sending the request failed: \($0))" } ?? "")
                                   + (context == nil ? " (does it expect https://?)" : ""))
        }
    }

    /// Runs `body`, throwing `HTTP1ClientError` if it takes longer than `limit` (and cancelling it).
    private func withDeadline<T: Sendable>(_ limit: Duration, what: String,
                                           _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw HTTP1ClientError(reason: "\(what): no complete answer within \(limit)")
            }
            return value
        }
    }
}

/// A failed HTTP exchange that is neither a TLS nor a socket error: the reason names the URL.
struct HTTP1ClientError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
