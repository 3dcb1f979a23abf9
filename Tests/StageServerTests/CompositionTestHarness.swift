import Foundation
import StageProtocol
@testable import StageServer
import Synchronization

/// A runner that records what it is asked and reports nothing by itself.
final class RecordingRunner: CompositionRunner {
    let started = Mutex<[CompositionPlan]>([])
    let stopped = Mutex<[String]>([])

    func start(_ plan: CompositionPlan) async { started.withLock { $0.append(plan) } }
    func stop(compositionId: String) async { stopped.withLock { $0.append(compositionId) } }

    var plans: [CompositionPlan] { started.withLock { $0 } }
    var stops: [String] { stopped.withLock { $0 } }
}

/// stageId → publishers, as the test sets them.
final class PublisherCounts: Sendable {
    let counts = Mutex<[String: Int]>([:])
    func set(_ stageId: String, _ publishers: Int) { counts.withLock { $0[stageId] = publishers } }
}

/// A control plane over a fresh store in a temporary directory, with a recording runner and
/// publisher counts the test sets.
struct CompositionHarness {
    let plane: ControlPlane
    let board: CompositionBoard
    let runner: RecordingRunner
    let store: Store
    let directory: URL
    let publishers: PublisherCounts

    static let accountId = "123456789012"

    init(idleTimeout: TimeInterval = 60) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("proscenium-composition-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try Store(path: directory.appendingPathComponent("store.sqlite").path)
        let counts = PublisherCounts()
        publishers = counts
        board = CompositionBoard(store: store, idleTimeout: idleTimeout, publisherCount: { stage in counts.counts.withLock { $0[stage] ?? 0 } })
        runner = RecordingRunner()
        plane = ControlPlane(store: store, names: ResourceNames(region: "us-east-1", accountId: Self.accountId),
                             signer: ParticipantTokenSigner.generate(), hub: SignalingHub(store: store),
                             endpoints: PublicEndpoints(baseURL: "http://127.0.0.1:8080"), board: board, runner: runner,
                             storageRoot: directory.appendingPathComponent("s3"), viewerCount: { _ in 7 })
    }

    func attachRunner() async { await board.attach(runner) }

    /// Runs an operation with a JSON body and returns its output as JSON.
    @discardableResult
    func call(_ operation: String, _ body: String = "{}") async throws -> [String: Any] {
        let output = try await plane.handle(operation: operation, body: Array(body.utf8))
        if output is IVSAPI.NoContent { return ["noContent": true] }
        let data = try IVSAPI.makeEncoder().encode(output)
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    /// The error an operation answers, or nil when it succeeds.
    func error(_ operation: String, _ body: String) async -> APIError? {
        do {
            _ = try await plane.handle(operation: operation, body: Array(body.utf8))
            return nil
        } catch {
            return error
        }
    }

    /// A stage, an encoder configuration (640×360), a storage configuration and a channel.
    func fixture() async throws -> CompositionFixture {
        let stage = try await call("CreateStage", #"{"name":"s"}"#)["stage"] as? [String: Any]
        let encoder = try await call("CreateEncoderConfiguration", #"{"video":{"width":640,"height":360,"framerate":25,"bitrate":1000000}}"#)
        let storage = try await call("CreateStorageConfiguration", #"{"s3":{"bucketName":"recordings"}}"#)
        let channel = try await call("CreateChannel", #"{"name":"ch"}"#)
        return CompositionFixture(
            stageArn: stage?["arn"] as? String ?? "",
            encoderArn: (encoder["encoderConfiguration"] as? [String: Any])?["arn"] as? String ?? "",
            storageArn: (storage["storageConfiguration"] as? [String: Any])?["arn"] as? String ?? "",
            channelArn: (channel["channel"] as? [String: Any])?["arn"] as? String ?? "")
    }
}

/// ARNs of the resources a composition names.
struct CompositionFixture: Sendable {
    var stageArn: String
    var encoderArn: String
    var storageArn: String
    var channelArn: String

    var channelDestination: String { #"{"channel":{"channelArn":"\#(channelArn)","encoderConfigurationArn":"\#(encoderArn)"}}"# }
    var s3Destination: String { #"{"s3":{"storageConfigurationArn":"\#(storageArn)","encoderConfigurationArns":["\#(encoderArn)"]}}"# }

    /// A StartComposition body to both destinations.
    func start(token: String? = nil, extra: String = "") -> String {
        let tokenPart = token.map { #","idempotencyToken":"\#($0)""# } ?? ""
        return #"{"stageArn":"\#(stageArn)","destinations":[\#(channelDestination),\#(s3Destination)]\#(tokenPart)\#(extra)}"#
    }
}

extension Dictionary where Key == String, Value == Any {
    subscript(path path: String...) -> Any? {
        var value: Any? = self
        for key in path {
            if let index = Int(key), let list = value as? [Any] { value = list.indices.contains(index) ? list[index] : nil }
            else { value = (value as? [String: Any])?[key] }
        }
        return value
    }
}
