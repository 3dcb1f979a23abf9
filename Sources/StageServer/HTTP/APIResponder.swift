import Foundation
import Hummingbird
import HTTPTypes
import StageProtocol
import StageSigV4

/// Turns an HTTP request into a control-plane call: size limit, SigV4 check, dispatch,
/// and the IVS error format (`x-amzn-ErrorType` header, `message` in the body).
struct APIResponder: Sendable {
    /// IVS request bodies are small (the largest, CreateStage with 12 token configurations and
    /// 50 tags, is a few KB): more is refused, and only after the headers authenticate.
    static let maxBodyBytes = 64 << 10
    /// A signed request's body must arrive within this.
    static let bodyDeadline: Duration = .seconds(10)
    let controlPlane: ControlPlane
    let accessKey: ServerSecrets.AccessKey

    func respond(_ request: Request, operation: String) async -> Response {
        let result: Result<any Encodable & Sendable, APIError>
        do {
            // Unauthenticated work is bounded: the headers are checked before any body is read.
            let headers = signedHeaders(request)
            let checked = try precheck(headers)
            let body = try await collectBody(request)
            try authenticate(request, headers: headers, body: body, checked: checked)
            result = .success(try await controlPlane.handle(operation: operation, body: body))
        } catch {
            result = .failure(error)
        }
        // Metric labels only from the fixed set of operations: a name a client made up is "unknown".
        let label = ControlPlane.operations[operation] == nil ? "unknown" : operation
        switch result {
        case .success(let output):
            ServerMetrics.apiRequest(operation: label, outcome: "ok")
            if output is IVSAPI.NoContent { return Response(status: .noContent) }
            return json(.ok, output)
        case .failure(let error):
            ServerMetrics.apiRequest(operation: label, outcome: error.kind.rawValue)
            ServerLog.api.notice("request refused", metadata: ["operation": "\(operation)", "error": "\(error.kind.rawValue)",
                                                               "reason": "\(error.message)"])
            var response = json(error.kind.status, IVSAPI.ErrorBody(message: error.message))
            response.headers[HTTPField.Name("x-amzn-ErrorType")!] = error.kind.rawValue
            return response
        }
    }

    private func collectBody(_ request: Request) async throws(APIError) -> [UInt8] {
        let outcome: Result<[UInt8], APIError> = await withTaskGroup(of: Result<[UInt8], APIError>?.self) { group in
            group.addTask {
                do {
                    return .success(Array(buffer: try await request.body.collect(upTo: Self.maxBodyBytes)))
                } catch {
                    return .failure(.validation("request body: larger than \(Self.maxBodyBytes) bytes"))
                }
            }
            group.addTask {
                try? await Task.sleep(for: Self.bodyDeadline)
                return Task.isCancelled ? nil : .failure(.validation("request body: not received within \(Self.bodyDeadline)"))
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .failure(.validation("request body: not received"))
        }
        return try outcome.get()
    }

    private func signedHeaders(_ request: Request) -> [(name: String, value: String)] {
        var headers = request.headers.map { (name: $0.name.canonicalName, value: $0.value) }
        if let authority = request.head.authority { headers.append((name: "host", value: authority)) }
        return headers
    }

    /// The SigV4 checks that need no body (key, scope, date), before any body is read.
    private func precheck(_ headers: [(name: String, value: String)]) throws(APIError)
        -> (authorization: SigV4Authorization, secret: String, amzDate: String) {
        let secret = accessKey
        switch SigV4.precheck(headers: headers, secretForKey: { $0 == secret.accessKeyId ? secret.secretAccessKey : nil },
                              region: controlPlane.names.region, service: "ivs") {
        case .failure(let error): throw .accessDenied("authorization: \(error.reason)")
        case .success(let checked): return checked
        }
    }

    /// The signature over the whole request, body included, for headers that passed `precheck`.
    private func authenticate(_ request: Request, headers: [(name: String, value: String)], body: [UInt8],
                              checked: (authorization: SigV4Authorization, secret: String, amzDate: String)) throws(APIError) {
        let signed = SigV4Request(method: request.method.rawValue, path: request.uri.path, query: request.uri.query ?? "",
                                  headers: headers, body: body)
        if case .failure(let error) = SigV4.verify(signed, prechecked: checked) {
            throw .accessDenied("authorization: \(error.reason)")
        }
    }

    private func json(_ status: HTTPResponse.Status, _ value: any Encodable) -> Response {
        let data = (try? IVSAPI.makeEncoder().encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
