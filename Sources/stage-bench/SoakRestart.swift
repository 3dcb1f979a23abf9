import Foundation
import StageControl
import StageTransport
import Synchronization

/// Chaos at the end of the soak: control-plane writes while the media load runs, SIGKILL,
/// `PRAGMA integrity_check` on the database as the kill left it, a restart on the same data
/// directory and ports, every acknowledged write looked up, and the time until every client
/// (all publishers sending, every subscription receiving) is back.
///
/// The clients reconnect as soon as the new process answers `/healthz` (what a client's retry
/// loop would do): "back" measures the server taking everyone back, not a client noticing.
struct SoakRestart {
    let state: SoakState
    /// Seconds of writes (and media load) before the kill.
    static let writeSeconds = 3

    struct Result {
        var writes = 0
        var integrity = "not run"
        var missing: [String] = []
        var backAfterSpawn: Double?
        var backAfterKill: Double?
        var healthyAfterSpawn: Double?
        var error: String?

        var report: String {
            func seconds(_ value: Double?) -> String { value.map { String(format: "%.2f s", $0) } ?? "never" }
            return """
                kill/restart: \(writes) control-plane writes acknowledged before SIGKILL, \(missing.count) missing after restart; \
                integrity_check: \(integrity); server healthy \(seconds(healthyAfterSpawn)) after spawn; every client back \
                \(seconds(backAfterSpawn)) after spawn (\(seconds(backAfterKill)) after the kill)
                """
        }
    }

    /// What a write acknowledged: the stage's ARN, or a token's participant id.
    enum Write: Sendable {
        case stage(String)
        case token(String)
    }

    func run() async -> Result {
        var result = Result()
        let acknowledged = WriteLog()
        let api = state.api
        let writer = Task {
            for index in 0..<10_000 where !Task.isCancelled {   // bounded; cancelled by the kill
                guard let stage = try? await api.createStage(name: "soak-write-\(index)") else { return }
                acknowledged.append(.stage(stage.arn))
                guard let token = try? await api.createParticipantToken(stageArn: stage.arn, capabilities: ["SUBSCRIBE"]) else { return }
                acknowledged.append(.token(token.participantId ?? ""))
            }
        }
        try? await Task.sleep(for: .seconds(Self.writeSeconds))
        let killed = ContinuousClock.now
        state.server.kill()
        writer.cancel()
        await writer.value
        let writes = acknowledged.writes
        result.writes = writes.count
        await dropClients()
        let database = state.server.dataDirectory.appendingPathComponent("proscenium.sqlite")
        let (integrity, tokens) = inspect(database)
        result.integrity = integrity

        let spawned = ContinuousClock.now
        let flowingBefore = state.counters.snapshot().flowing
        do {
            try await state.server.start(keepingPorts: true)
            result.healthyAfterSpawn = (ContinuousClock.now - spawned).milliseconds / 1000
            try await reconnect()
            let expected = state.subscribers.count * state.publishers.count
            let deadline = ContinuousClock.now + .seconds(30)
            while state.counters.snapshot().flowing - flowingBefore < expected, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            if state.counters.snapshot().flowing - flowingBefore >= expected {
                result.backAfterSpawn = (ContinuousClock.now - spawned).milliseconds / 1000
                result.backAfterKill = (ContinuousClock.now - killed).milliseconds / 1000
            }
        } catch {
            result.error = "\(error)"
        }
        result.missing = await missing(writes, tokens: tokens)
        return result
    }

    /// The server is gone: every client's sockets close (nothing to tell a dead process).
    private func dropClients() async {
        for publisher in state.publishers {
            let peer = try? await state.connector.eventLoop.submit { () -> ClientPeerConnection? in
                defer { publisher.peer = nil }
                return publisher.peer
            }.get()
            if let peer = peer ?? nil { await peer.agent.close() }
        }
        for subscriber in state.subscribers { await state.connector.vanish(subscriber) }
    }

    private func reconnect() async throws {
        let connector = state.connector, ids = state.publisherIds
        try await forEachConcurrently(state.publishers, limit: 6) { try await connector.publish($0) }
        try await forEachConcurrently(state.subscribers, limit: 4) { try await connector.subscribe($0, to: ids) }
    }

    /// `PRAGMA integrity_check` and the stored token ids, on a copy of the files the kill left
    /// (the copy keeps the restarted server from ever seeing a checker's connection).
    private func inspect(_ database: URL) -> (integrity: String, tokens: Set<String>) {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("soak-db-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: copy) }
        do {
            try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: database.path + suffix) {
                try FileManager.default.copyItem(atPath: database.path + suffix, toPath: copy.appendingPathComponent("db.sqlite").path + suffix)
            }
            let path = copy.appendingPathComponent("db.sqlite").path
            let integrity = try sqlite(path, "PRAGMA integrity_check;").trimmingCharacters(in: .whitespacesAndNewlines)
            let tokens = try sqlite(path, "SELECT participant_id FROM participant_token;").split(separator: "\n").map(String.init)
            return (integrity, Set(tokens))
        } catch {
            return ("could not run sqlite3: \(error)", [])
        }
    }

    private func sqlite(_ path: String, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, sql]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Acknowledged writes not found: stages through GetStage on the restarted server, tokens
    /// in the database as the kill left it.
    private func missing(_ writes: [Write], tokens: Set<String>) async -> [String] {
        var missing: [String] = []
        for write in writes {
            switch write {
            case .stage(let arn):
                if (try? await state.api.getStage(arn: arn)) == nil { missing.append("stage \(arn)") }
            case .token(let id):
                if !tokens.contains(id) { missing.append("participant token \(id)") }
            }
        }
        return missing
    }
}

/// The writes the server acknowledged, appended by the writer task.
private final class WriteLog: Sendable {
    private let list = Mutex<[SoakRestart.Write]>([])
    func append(_ write: SoakRestart.Write) { list.withLock { $0.append(write) } }
    var writes: [SoakRestart.Write] { list.withLock { $0 } }
}
