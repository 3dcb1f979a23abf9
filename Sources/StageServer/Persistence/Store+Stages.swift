import Foundation
import GRDB

extension Store {
    static func stage(from row: Row) -> StageRecord {
        StageRecord(seq: row["seq"], id: row["id"], name: row["name"],
                    tags: JSONColumn.decode([String: String].self, row["tags"], default: [:]))
    }

    func stage(id: String) async throws -> StageRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM stage WHERE id = ?", arguments: [id]).map(Store.stage(from:))
        }
    }

    /// Stages in creation order after `afterSeq`, at most `limit`.
    func stages(afterSeq: Int64, limit: Int) async throws -> [StageRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM stage WHERE seq > ? ORDER BY seq LIMIT ?", arguments: [afterSeq, limit])
                .map(Store.stage(from:))
        }
    }

    /// Inserts a stage and the tokens minted with it in one transaction.
    func insertStage(id: String, name: String, tags: [String: String], tokens: [TokenRecord]) async throws -> StageRecord {
        try await write { db in
            try db.execute(sql: "INSERT INTO stage(id, name, tags, created_at) VALUES (?, ?, ?, ?)",
                           arguments: [id, name, JSONColumn.encode(tags), Date().unix])
            for token in tokens { try Store.insert(token, db) }
            return StageRecord(seq: db.lastInsertedRowID, id: id, name: name, tags: tags)
        }
    }

    func renameStage(id: String, name: String) async throws -> StageRecord? {
        try await write { db in
            try db.execute(sql: "UPDATE stage SET name = ? WHERE id = ?", arguments: [name, id])
            return try Row.fetchOne(db, sql: "SELECT * FROM stage WHERE id = ?", arguments: [id]).map(Store.stage(from:))
        }
    }

    /// Deletes a stage; returns false when it did not exist.
    func deleteStage(id: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM stage WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    func countStages() async throws -> Int {
        try await read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM stage") ?? 0 }
    }

    static func insert(_ token: TokenRecord, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO participant_token(participant_id, stage_id, user_id, attributes, capabilities, duration, expires_at, issued_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [token.participantId, token.stageId, token.userId, JSONColumn.encode(token.attributes),
                             JSONColumn.encode(token.capabilities), token.duration, token.expiresAt.unix, token.issuedAt.unix])
    }

    func insertToken(_ token: TokenRecord) async throws {
        try await write { db in try Store.insert(token, db) }
    }

    func revoke(participantId: String, stageId: String, reason: String) async throws {
        try await write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO revoked_participant(participant_id, stage_id, reason, revoked_at) VALUES (?, ?, ?, ?)",
                           arguments: [participantId, stageId, reason, Date().unix])
        }
    }

    func isRevoked(participantId: String) async throws -> Bool {
        try await read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM revoked_participant WHERE participant_id = ?", arguments: [participantId]) ?? false
        }
    }
}
