import Foundation
import GRDB

/// Stage sessions, participants and their events. Signaling writes these with `enqueue`.
extension Store {
    func recordSessionStart(sessionId: String, stageId: String, at time: Date) {
        enqueue("session-start") { db in
            try db.execute(sql: "INSERT INTO stage_session(session_id, stage_id, start_time) VALUES (?, ?, ?)",
                           arguments: [sessionId, stageId, time.unix])
        }
    }

    func recordSessionEnd(sessionId: String, at time: Date) {
        enqueue("session-end") { db in
            try db.execute(sql: "UPDATE stage_session SET end_time = ? WHERE session_id = ?", arguments: [time.unix, sessionId])
        }
    }

    /// A participant connected: inserts its row (or marks it connected again) and a JOINED event.
    func recordJoin(sessionId: String, participant: ParticipantRecord, at time: Date) {
        enqueue("join") { db in
            try db.execute(sql: """
                INSERT INTO participant(session_id, participant_id, user_id, attributes, state, first_join_time, published,
                                        sdk_version, os_name, os_version)
                VALUES (?, ?, ?, ?, 'CONNECTED', ?, 0, ?, ?, ?)
                ON CONFLICT(session_id, participant_id) DO UPDATE SET state = 'CONNECTED'
                """, arguments: [sessionId, participant.participantId, participant.userId, JSONColumn.encode(participant.attributes),
                                 time.unix, participant.sdkVersion, participant.osName, participant.osVersion])
            try Store.insertEvent(db, sessionId: sessionId, participantId: participant.participantId, name: "JOINED", at: time)
        }
    }

    func recordLeave(sessionId: String, participantId: String, at time: Date) {
        enqueue("leave") { db in
            try db.execute(sql: "UPDATE participant SET state = 'DISCONNECTED' WHERE session_id = ? AND participant_id = ?",
                           arguments: [sessionId, participantId])
            try Store.insertEvent(db, sessionId: sessionId, participantId: participantId, name: "LEFT", at: time)
        }
    }

    /// Appends an event (PUBLISH_STARTED, SUBSCRIBE_STOPPED, …); publish events also set `published`.
    func recordEvent(sessionId: String, participantId: String, name: String, remote: String? = nil,
                     errorCode: String? = nil, at time: Date = Date()) {
        enqueue("event") { db in
            if name == "PUBLISH_STARTED" {
                try db.execute(sql: "UPDATE participant SET published = 1 WHERE session_id = ? AND participant_id = ?",
                               arguments: [sessionId, participantId])
            }
            try Store.insertEvent(db, sessionId: sessionId, participantId: participantId, name: name, remote: remote,
                                  errorCode: errorCode, at: time)
        }
    }

    static func insertEvent(_ db: Database, sessionId: String, participantId: String, name: String, remote: String? = nil,
                            errorCode: String? = nil, at time: Date) throws {
        // A cached statement: a burst of subscriptions inserts hundreds of events in one transaction.
        try db.cachedStatement(sql: """
            INSERT INTO participant_event(session_id, participant_id, name, event_time, remote_participant_id, error_code)
            VALUES (?, ?, ?, ?, ?, ?)
            """).execute(arguments: [sessionId, participantId, name, time.unix, remote, errorCode])
    }

    /// Closes every session left open by an earlier process (it stopped without saying goodbye).
    func closeDanglingSessions(at time: Date) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE participant SET state = 'DISCONNECTED' WHERE state = 'CONNECTED'")
            try db.execute(sql: "UPDATE stage_session SET end_time = ? WHERE end_time IS NULL", arguments: [time.unix])
        }
    }

    func session(stageId: String, sessionId: String) async throws -> SessionRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM stage_session WHERE stage_id = ? AND session_id = ?",
                             arguments: [stageId, sessionId]).map(Store.session(from:))
        }
    }

    /// Sessions newest first, as IVS lists them.
    func sessions(stageId: String, beforeSeq: Int64, limit: Int) async throws -> [SessionRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM stage_session WHERE stage_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
                             arguments: [stageId, beforeSeq, limit]).map(Store.session(from:))
        }
    }

    static func session(from row: Row) -> SessionRecord {
        SessionRecord(seq: row["seq"], sessionId: row["session_id"], stageId: row["stage_id"],
                      startTime: Date(unix: row["start_time"]), endTime: (row["end_time"] as Double?).map(Date.init(unix:)))
    }

    struct ParticipantFilter: Sendable {
        var userId: String?
        var published: Bool?
        var connected: Bool?
    }

    func participants(sessionId: String, filter: ParticipantFilter, afterSeq: Int64, limit: Int) async throws -> [ParticipantRecord] {
        try await read { db in
            var sql = "SELECT * FROM participant WHERE session_id = ? AND seq > ?"
            var arguments: StatementArguments = [sessionId, afterSeq]
            if let userId = filter.userId { sql += " AND user_id = ?"; _ = arguments.append(contentsOf: [userId]) }
            if let published = filter.published { sql += " AND published = ?"; _ = arguments.append(contentsOf: [published]) }
            if let connected = filter.connected {
                sql += " AND state = ?"; _ = arguments.append(contentsOf: [connected ? "CONNECTED" : "DISCONNECTED"])
            }
            sql += " ORDER BY seq LIMIT ?"
            _ = arguments.append(contentsOf: [limit])
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map(Store.participant(from:))
        }
    }

    func participant(sessionId: String, participantId: String) async throws -> ParticipantRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM participant WHERE session_id = ? AND participant_id = ?",
                             arguments: [sessionId, participantId]).map(Store.participant(from:))
        }
    }

    static func participant(from row: Row) -> ParticipantRecord {
        ParticipantRecord(
            seq: row["seq"], sessionId: row["session_id"], participantId: row["participant_id"], userId: row["user_id"],
            attributes: JSONColumn.decode([String: String].self, row["attributes"], default: [:]),
            connected: (row["state"] as String) == "CONNECTED", firstJoinTime: Date(unix: row["first_join_time"]),
            published: row["published"], sdkVersion: row["sdk_version"], osName: row["os_name"], osVersion: row["os_version"])
    }

    func events(sessionId: String, participantId: String, afterSeq: Int64, limit: Int) async throws -> [ParticipantEventRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM participant_event WHERE session_id = ? AND participant_id = ? AND seq > ? ORDER BY seq LIMIT ?
                """, arguments: [sessionId, participantId, afterSeq, limit]).map { row in
                ParticipantEventRecord(seq: row["seq"], participantId: row["participant_id"], name: row["name"],
                                       time: Date(unix: row["event_time"]), remoteParticipantId: row["remote_participant_id"],
                                       errorCode: row["error_code"])
            }
        }
    }
}
