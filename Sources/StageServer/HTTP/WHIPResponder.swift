import Foundation
import Hummingbird
import HTTPTypes
import StageProtocol
import StageTransport

/// WHIP (RFC 9725) at `/whip` and WHEP at `/whep/{participantId}`: an SDP offer in, the
/// answer out with `201 Created` and a `Location` to DELETE when done. The bearer token is a
/// participant token, checked exactly as on the signaling socket.
struct WHIPResponder: Sendable {
    let admission: TokenAdmission
    let media: MediaService

    func addRoutes(to router: Router<some RequestContext>) {
        router.post("/whip") { request, _ in await publish(request) }
        router.delete("/whip/:resource") { request, context in await delete(request, context.parameters.get("resource") ?? "") }
        router.post("/whep/:participantId") { request, context in
            await subscribe(request, to: context.parameters.get("participantId") ?? "")
        }
        router.delete("/whep/resource/:resource") { request, context in await delete(request, context.parameters.get("resource") ?? "") }
        router.post("/whep/resource/:resource/layer") { request, context in
            await selectLayer(request, resource: context.parameters.get("resource") ?? "")
        }
        // Browsers call WHIP/WHEP from other origins: answer the CORS preflight (RFC 9725 §4.6).
        for path in ["/whip", "/whip/:resource", "/whep/:participantId", "/whep/resource/:resource", "/whep/resource/:resource/layer"] {
            router.on(RouterPath(path), method: .options) { _, _ in Response(status: .noContent, headers: Self.corsHeaders) }
        }
    }

    static let corsHeaders: HTTPFields = [
        .accessControlAllowOrigin: "*",
        .accessControlAllowMethods: "POST, DELETE, OPTIONS",
        .accessControlAllowHeaders: "Authorization, Content-Type",
        .accessControlExposeHeaders: "Location, Link",
    ]

    /// The WHEP layer extension's request: `{"encodingId": "h"}` picks a simulcast layer by rid;
    /// an empty object goes back to the highest available.
    func selectLayer(_ request: Request, resource: String) async -> Response {
        struct LayerRequest: Decodable { var encodingId: String? }
        if let refusal = await ownerRefusal(request, resource: resource) { return refusal }
        guard let body = try? await request.body.collect(upTo: 4096),
              let layer = try? JSONDecoder().decode(LayerRequest.self, from: Data(buffer: body)) else {
            return text(.badRequest, "body: a JSON object {\"encodingId\": \"<rid>\"}")
        }
        do {
            try await media.setLayer(resourceId: resource, rid: layer.encodingId)
            return Response(status: .noContent, headers: Self.corsHeaders)
        } catch MediaService.LayerFailure.noSuchLayer(let layers) {
            return text(.badRequest, "encodingId: must be one of \(layers.joined(separator: ", "))")
        } catch {
            return text(.notFound, "no such WHEP session")
        }
    }

    func publish(_ request: Request) async -> Response {
        do {
            let (claims, offer) = try await read(request, requires: \.allowPublish, "PUBLISH")
            let participant = ParticipantDescriptor(participantId: claims.jti, userId: claims.userId ?? "",
                                                    attributes: claims.attributes ?? [:], capabilities: claims.capabilities)
            let answer = try await media.publish(participant: participant, stageId: claims.topic, offer: offer)
            return created(answer, location: "/whip/\(answer.resourceId)")
        } catch let response as ErrorResponse {
            return response.response
        } catch {
            return text(.badRequest, "\(error)")
        }
    }

    func subscribe(_ request: Request, to publisherId: String) async -> Response {
        do {
            let (claims, offer) = try await read(request, requires: \.allowSubscribe, "SUBSCRIBE")
            let layer = request.uri.queryParameters.get("layer")
            let answer = try await media.subscribe(to: publisherId, stageId: claims.topic, offer: offer, layer: layer, ownerId: claims.jti)
            var response = created(answer, location: "/whep/resource/\(answer.resourceId)")
            response.headers[HTTPField.Name("Link")!] = "</whep/resource/\(answer.resourceId)/layer>; rel=\"urn:ietf:params:whep:ext:core:layer\""
            return response
        } catch let response as ErrorResponse {
            return response.response
        } catch MediaService.SubscribeFailure.publisherNotFound {
            return text(.notFound, "participantId: \(publisherId) does not publish media")
        } catch MediaService.SubscribeFailure.wrongStage {
            return text(.forbidden, "participantId: \(publisherId) is on another stage than the token")
        } catch {
            return text(.badRequest, "\(error)")
        }
    }

    func delete(_ request: Request, _ resource: String) async -> Response {
        if let refusal = await ownerRefusal(request, resource: resource) { return refusal }
        return await media.close(resourceId: resource) ? Response(status: .ok, headers: Self.corsHeaders) : text(.notFound, "no such session")
    }

    /// A WHIP/WHEP resource is changed or deleted only with the bearer token of the participant
    /// it belongs to (RFC 9725 §4.4 lets a server require it): 401 without a valid token, 403
    /// with someone else's, 404 for no such resource — checked in that order, so a caller
    /// without credentials learns nothing about which resources exist.
    private func ownerRefusal(_ request: Request, resource: String) async -> Response? {
        guard let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer ") else {
            return text(.unauthorized, "Authorization: Bearer <participant token> is required")
        }
        let claims: ParticipantTokenClaims
        do {
            claims = try await admission.admit(String(authorization.dropFirst("Bearer ".count)))
        } catch {
            return text(.unauthorized, "\(error.code): \(error.message)")
        }
        guard let owner = await media.owner(resourceId: resource) else { return text(.notFound, "no such session") }
        guard owner == claims.jti else { return text(.forbidden, "this session belongs to another participant") }
        return nil
    }

    struct ErrorResponse: Error {
        var response: Response
    }

    /// The bearer token (admitted) and the parsed offer, or the HTTP error to answer.
    private func read(_ request: Request, requires capability: KeyPath<Capabilities, Bool>,
                      _ capabilityName: String) async throws -> (ParticipantTokenClaims, RemoteOffer) {
        guard let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer ") else {
            throw ErrorResponse(response: text(.unauthorized, "Authorization: Bearer <participant token> is required"))
        }
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/sdp") == true else {
            throw ErrorResponse(response: text(.unsupportedMediaType, "Content-Type must be application/sdp"))
        }
        let claims: ParticipantTokenClaims
        do {
            claims = try await admission.admit(String(authorization.dropFirst("Bearer ".count)))
        } catch {
            let status: HTTPResponse.Status = error.code == .participantRevoked ? .forbidden : .unauthorized
            throw ErrorResponse(response: text(status, "\(error.code): \(error.message)"))
        }
        guard claims.capabilities[keyPath: capability] else {
            throw ErrorResponse(response: text(.forbidden, "token: does not grant \(capabilityName)"))
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: RemoteOffer.maximumBytes)
        } catch {
            throw ErrorResponse(response: text(.contentTooLarge, "offer: larger than \(RemoteOffer.maximumBytes) bytes"))
        }
        do {
            return (claims, try RemoteOffer(sdp: String(buffer: body)))
        } catch {
            throw ErrorResponse(response: text(.badRequest, error.reason))
        }
    }

    private func created(_ answer: MediaService.Answer, location: String) -> Response {
        var headers = Self.corsHeaders
        headers[.contentType] = "application/sdp"
        headers[.location] = location
        return Response(status: .created, headers: headers, body: .init(byteBuffer: ByteBuffer(string: answer.sdp)))
    }

    private func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
        var headers = Self.corsHeaders
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: message + "\n")))
    }
}
