import ArgumentParser
import Foundation
import StageControl
import StageKit

/// Where the control plane is and how to sign for it.
struct ControlPlaneOptions: ParsableArguments {
    @Option(help: "Control-plane endpoint (default $STAGE_ENDPOINT or http://127.0.0.1:8080).")
    var endpointURL: String?
    @Option(help: "Region used for signing and ARNs.")
    var region = "us-east-1"
    @Flag(help: "Print the raw JSON answer.")
    var json = false
    @OptionGroup var tls: TLSOptions

    func client() throws -> ControlPlaneClient {
        let environment = ProcessInfo.processInfo.environment
        let endpoint = endpointURL ?? environment["STAGE_ENDPOINT"] ?? "http://127.0.0.1:8080"
        guard let url = URL(string: endpoint), url.scheme == "http" || url.scheme == "https" else {
            throw ValidationError("--endpoint-url must be an http(s) URL, got '\(endpoint)'")
        }
        let (id, secret) = try credentials(environment)
        return ControlPlaneClient(endpoint: url, accessKeyId: id, secretAccessKey: secret, region: environment["AWS_DEFAULT_REGION"] ?? region,
                                  tls: try tls.configuration())
    }

    private func credentials(_ environment: [String: String]) throws -> (String, String) {
        if let id = environment["AWS_ACCESS_KEY_ID"], let secret = environment["AWS_SECRET_ACCESS_KEY"] { return (id, secret) }
        if let id = environment["STAGE_ACCESS_KEY_ID"], let secret = environment["STAGE_SECRET_ACCESS_KEY"] { return (id, secret) }
        struct Stored: Decodable { var accessKeyId: String; var secretAccessKey: String }
        if let data = FileManager.default.contents(atPath: "stage-data/credentials.json"),
           let stored = try? JSONDecoder().decode(Stored.self, from: data) {
            return (stored.accessKeyId, stored.secretAccessKey)
        }
        throw ValidationError("no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (stage-server prints them on first start)")
    }

    /// Runs a call, turning API errors into a one-line message and exit code 1.
    func run<T: Encodable>(_ call: (ControlPlaneClient) async throws -> T, human: (T) -> String) async throws {
        do {
            let result = try await call(try client())
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                encoder.dateEncodingStrategy = .iso8601
                print(String(decoding: try encoder.encode(result), as: UTF8.self))
            } else {
                print(human(result))
            }
        } catch let error as ControlPlaneClient.APIError {
            FileHandle.standardError.write(Data("error: \(error.type): \(error.message)\n".utf8))
            throw ExitCode(1)
        } catch let error as StageTLSError {
            FileHandle.standardError.write(Data("error: \(error.reason)\n".utf8))
            throw ExitCode(1)
        }
    }
}
