import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The little of Janus's HTTP API (janus.conf.meetecho.com/docs/rest) a VideoRoom publisher or
/// subscriber needs: a session, a plugin handle, messages with JSEP, long-polled events.
struct JanusAPI {
    let url: URL

    func info() async throws -> [String: Any] { try await request(url.appendingPathComponent("info"), nil) }

    func createSession() async throws -> Int {
        try await idOf(request(url, ["janus": "create"]))
    }

    func attach(session: Int) async throws -> Int {
        try await idOf(request(url.appendingPathComponent("\(session)"), ["janus": "attach", "plugin": "janus.plugin.videoroom"]))
    }

    /// Sends a plugin message; returns the plugin's event (which may carry a JSEP), long-polling for it.
    func message(session: Int, handle: Int, body: [String: Any], jsep: [String: Any]? = nil) async throws -> [String: Any] {
        var message: [String: Any] = ["janus": "message", "body": body]
        if let jsep { message["jsep"] = jsep }
        let transaction = UUID().uuidString
        message["transaction"] = transaction
        let first = try await request(url.appendingPathComponent("\(session)/\(handle)"), message)
        if first["janus"] as? String == "event" { return first }
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            var poll = URLComponents(url: url.appendingPathComponent("\(session)"), resolvingAgainstBaseURL: false)!
            poll.queryItems = [URLQueryItem(name: "maxev", value: "1")]
            let event = try await request(poll.url!, nil)
            if event["transaction"] as? String == transaction, event["janus"] as? String == "event" { return event }
        }
        throw BenchError("janus: no answer to \(body)")
    }

    private func idOf(_ response: [String: Any]) throws -> Int {
        guard let data = response["data"] as? [String: Any], let id = (data["id"] as? NSNumber)?.intValue else {
            throw BenchError("janus: unexpected answer \(response)")
        }
        return id
    }

    private func request(_ url: URL, _ body: [String: Any]?) async throws -> [String: Any] {
        var request = URLRequest(url: url)
        if var body {
            if body["transaction"] == nil { body["transaction"] = UUID().uuidString }
            request.httpMethod = "POST"
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        request.timeoutInterval = 35
        let (data, _) = try await URLSession.shared.data(for: request)
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw BenchError("janus: not JSON") }
        if object["janus"] as? String == "error" { throw BenchError("janus error: \(object)") }
        return object
    }
}
