public import Foundation
public import StageProtocol
import StageSigV4
public import StageTLS

/// A small client of the IVS Real-Time control plane (this server's, or anything that speaks
/// it), signing each call with SigV4 (service `ivs`). Used by the `stage` CLI, the benchmark and tests.
public struct ControlPlaneClient: Sendable {
    public var endpoint: URL
    public var accessKeyId: String
    public var secretAccessKey: String
    public var region: String
    /// Whom to trust for an `https://` endpoint: the system roots, or a CA file.
    public var tls: StageTLSConfiguration

    /// - Parameter tls: for an `https://` endpoint, the CA roots to trust (default: the system's).
    public init(endpoint: URL, accessKeyId: String, secretAccessKey: String, region: String = "us-east-1",
                tls: StageTLSConfiguration = .systemRoots) {
        self.endpoint = endpoint
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.region = region
        self.tls = tls
    }

    /// An error answer of the API: the `x-amzn-ErrorType` and the message.
    public struct APIError: Error, Sendable, CustomStringConvertible {
        public var status: Int
        public var type: String
        public var message: String
        public var description: String { "\(type) (\(status)): \(message)" }
    }

    /// Calls `POST /<operation>` with a JSON body and decodes the answer.
    public func call<Output: Decodable>(_ operation: String, _ input: [String: Any] = [:], as: Output.Type = Output.self) async throws -> Output {
        let body = try JSONSerialization.data(withJSONObject: input, options: [.sortedKeys])
        let data = try await send(operation, body: body)
        return try IVSAPI.makeDecoder().decode(Output.self, from: data)
    }

    /// Sends raw bytes (already JSON or deliberately not) and returns the body of a 2xx answer.
    public func send(_ operation: String, body: Data) async throws -> Data {
        let url = endpoint.appendingPathComponent(operation)
        var hostHeader = url.host ?? "localhost"
        if let port = url.port { hostHeader += ":\(port)" }
        var signed = SigV4Request(method: "POST", path: url.path, query: "",
                                  headers: [(name: "host", value: hostHeader), (name: "content-type", value: "application/json")],
                                  body: Array(body))
        SigV4.sign(&signed, accessKeyId: accessKeyId, secretAccessKey: secretAccessKey, region: region, service: "ivs")
        let response = try await HTTP1Client(trust: tls).send(method: "POST", url: url, headers: signed.headers, body: Array(body))
        let data = Data(response.body)
        guard (200..<300).contains(response.status) else {
            let type = response.headers.first(name: "x-amzn-ErrorType") ?? "UnknownError"
            let message = (try? JSONDecoder().decode(IVSAPI.ErrorBody.self, from: data).message) ?? String(decoding: data, as: UTF8.self)
            throw APIError(status: response.status, type: type, message: message)
        }
        return data
    }
}

extension ControlPlaneClient {
    public func createStage(name: String, tags: [String: String] = [:]) async throws -> IVSAPI.Stage {
        try await call("CreateStage", ["name": name, "tags": tags], as: IVSAPI.CreateStageResponse.self).stage
    }

    /// - Parameter capabilities: `PUBLISH` and/or `SUBSCRIBE`.
    public func createParticipantToken(stageArn: String, userId: String = "", attributes: [String: String] = [:],
                                       capabilities: [String] = ["PUBLISH", "SUBSCRIBE"],
                                       durationMinutes: Int = 720) async throws -> IVSAPI.ParticipantToken {
        try await call("CreateParticipantToken", [
            "stageArn": stageArn, "userId": userId, "attributes": attributes, "capabilities": capabilities, "duration": durationMinutes,
        ], as: IVSAPI.CreateParticipantTokenResponse.self).participantToken
    }

    public func deleteStage(arn: String) async throws {
        _ = try await call("DeleteStage", ["arn": arn], as: IVSAPI.Empty.self)
    }

    public func disconnectParticipant(stageArn: String, participantId: String, reason: String = "") async throws {
        _ = try await call("DisconnectParticipant", ["stageArn": stageArn, "participantId": participantId, "reason": reason],
                           as: IVSAPI.Empty.self)
    }

    public func getStage(arn: String) async throws -> IVSAPI.Stage {
        try await call("GetStage", ["arn": arn], as: IVSAPI.StageResponse.self).stage
    }
}
