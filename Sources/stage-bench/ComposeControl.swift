import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StageControl

/// The IVS calls the composition benchmark makes, as a backend would (`ivs` CreateChannel,
/// `ivs-realtime` CreateEncoderConfiguration / StartComposition / GetComposition /
/// StopComposition, all `POST /<Operation>` signed for service `ivs`), and plain HTTP GETs.
struct ComposeControl: Sendable {
    let api: ControlPlaneClient

    /// Calls an operation; its JSON answer as a dictionary. A failed exchange (not an API
    /// error answer) is retried twice and reported on stderr: one run hit NIO's "I/O on closed
    /// channel" from a control-plane call.
    func call(_ operation: String, _ input: [String: Any]) async throws -> [String: Any] {
        let body = try JSONSerialization.data(withJSONObject: input, options: [.sortedKeys])
        for attempt in 1...3 {
            do {
                let data = try await api.send(operation, body: body)
                return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
            } catch let error as ControlPlaneClient.APIError {
                throw error
            } catch {
                FileHandle.standardError.write(Data("compose: \(operation) attempt \(attempt) failed: \(error)\n".utf8))
                if attempt == 3 { throw BenchError("\(operation): \(error)") }
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        return [:]
    }

    /// A channel: its ARN and the master playlist's URL.
    func createChannel(name: String, latencyMode: String) async throws -> (arn: String, playback: URL) {
        let answer = try await call("CreateChannel", ["name": name, "latencyMode": latencyMode])
        guard let channel = answer["channel"] as? [String: Any], let arn = channel["arn"] as? String,
              let playback = (channel["playbackUrl"] as? String).flatMap(URL.init(string:)) else {
            throw BenchError("CreateChannel: unexpected answer \(answer)")
        }
        return (arn, playback)
    }

    /// An encoder configuration (the canvas and first rendition); its ARN.
    func createEncoderConfiguration(width: Int, height: Int, framerate: Int, bitrate: Int) async throws -> String {
        let answer = try await call("CreateEncoderConfiguration", [
            "name": "compose-bench", "video": ["width": width, "height": height, "framerate": framerate, "bitrate": bitrate],
        ])
        guard let arn = (answer["encoderConfiguration"] as? [String: Any])?["arn"] as? String else {
            throw BenchError("CreateEncoderConfiguration: unexpected answer \(answer)")
        }
        return arn
    }

    /// Starts a composition of the stage to the channel and waits until it is ACTIVE; its ARN.
    func startComposition(stageArn: String, channelArn: String, encoderArn: String, layout: [String: Any]) async throws -> String {
        let answer = try await call("StartComposition", [
            "stageArn": stageArn, "idempotencyToken": UUID().uuidString, "layout": layout,
            "destinations": [["channel": ["channelArn": channelArn, "encoderConfigurationArn": encoderArn]]],
        ])
        guard let arn = (answer["composition"] as? [String: Any])?["arn"] as? String else {
            throw BenchError("StartComposition: unexpected answer \(answer)")
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let state = (try await call("GetComposition", ["arn": arn])["composition"] as? [String: Any])?["state"] as? String
            if state == "ACTIVE" { return arn }
            if state == "FAILED" || state == "STOPPED" { throw BenchError("composition \(arn) is \(state ?? "?")") }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BenchError("composition \(arn) not ACTIVE within 20 s")
    }

    /// Stops a composition and waits (bounded) until it says STOPPED.
    func stopComposition(arn: String) async {
        _ = try? await call("StopComposition", ["arn": arn])
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            let state = (try? await call("GetComposition", ["arn": arn])["composition"] as? [String: Any])?["state"] as? String
            if state == "STOPPED" || state == "FAILED" || state == nil { return }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }
}

/// GETs for the HLS client: body and status; the body of a non-200 answer is returned too.
enum ComposeHTTP {
    static func get(_ url: URL, timeout: TimeInterval = 15) async throws -> (body: [UInt8], status: Int) {
        var request = URLRequest(url: url)
        request.timeoutInterval = timeout
        request.cachePolicy = .reloadIgnoringLocalCacheData
        let (data, response) = try await URLSession.shared.data(for: request)
        return ([UInt8](data), (response as? HTTPURLResponse)?.statusCode ?? 0)
    }

    /// GET that must answer 200.
    static func fetch(_ url: URL, timeout: TimeInterval = 15) async throws -> [UInt8] {
        let (body, status) = try await get(url, timeout: timeout)
        guard status == 200 else { throw BenchError("GET \(url) → \(status): \(String(decoding: body.prefix(300), as: UTF8.self))") }
        return body
    }

    static func text(_ url: URL, timeout: TimeInterval = 15) async throws -> String {
        String(decoding: try await fetch(url, timeout: timeout), as: UTF8.self)
    }
}
