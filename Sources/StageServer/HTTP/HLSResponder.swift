import Foundation
import Hummingbird
import HTTPTypes

/// The public channel: `/hls/<channel>/master.m3u8`, `/hls/<channel>/<rendition>/index.m3u8`
/// (with blocking reloads), init sections, parts and segments, and the player page
/// `/play/<channel>`. Nothing here needs credentials, like IVS playback URLs; every answer
/// carries CORS and cache headers a CDN can front: media immutable, playlists short-lived,
/// blocking playlist answers not cached.
struct HLSResponder: Sendable {
    let origin: HLSOrigin

    static let playlistType = "application/vnd.apple.mpegurl"

    func addRoutes(to router: Router<some RemoteAddressRequestContext>) {
        router.get("/hls/:channel/master.m3u8") { _, context in
            let answer = await origin.multivariant(channelId: context.parameters.get("channel") ?? "", client: context.remoteAddress?.ipAddress)
            return Self.response(answer)
        }
        router.get("/hls/:channel/:rendition/index.m3u8") { request, context in
            var query: [String: String] = [:]
            for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
            let answer = await origin.mediaPlaylist(channelId: context.parameters.get("channel") ?? "",
                                                    rendition: context.parameters.get("rendition") ?? "", query: query,
                                                    client: context.remoteAddress?.ipAddress)
            return Self.response(answer)
        }
        router.get("/hls/:channel/:rendition/:file") { _, context in
            let answer = await origin.media(channelId: context.parameters.get("channel") ?? "",
                                            rendition: context.parameters.get("rendition") ?? "", file: context.parameters.get("file") ?? "")
            return Self.response(answer)
        }
        router.get("/play/:channel") { _, context in
            let channel = context.parameters.get("channel") ?? ""
            guard channel.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }), !channel.isEmpty, channel.count <= 64 else {
                return Response(status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                                body: .init(byteBuffer: ByteBuffer(string: "no such channel\n")))
            }
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"],
                            body: .init(byteBuffer: ByteBuffer(string: PlayerPage.html(channelId: channel))))
        }
    }

    static func response(_ answer: HLSOrigin.Answer) -> Response {
        var headers: HTTPFields = [.accessControlAllowOrigin: "*"]
        switch answer {
        case .playlist(let text, let blocking):
            headers[.contentType] = playlistType
            // A blocking answer is for that one request; a plain one may be reused for about a part.
            headers[.cacheControl] = blocking ? "no-store" : "max-age=1"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
        case .media(let bytes, let contentType):
            headers[.contentType] = contentType
            headers[.cacheControl] = "public, max-age=31536000, immutable"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        case .badRequest(let reason):
            return text(.badRequest, reason, headers)
        case .notFound(let reason):
            return text(.notFound, reason, headers)
        case .unavailable(let reason):
            headers[.retryAfter] = "1"
            return text(.serviceUnavailable, reason, headers)
        }
    }

    private static func text(_ status: HTTPResponse.Status, _ message: String, _ base: HTTPFields) -> Response {
        var headers = base
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: message + "\n")))
    }
}
