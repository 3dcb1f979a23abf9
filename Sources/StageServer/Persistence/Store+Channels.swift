import Foundation
import GRDB

/// `ivs` channels with their stream key. A channel fed by a live composition cannot be deleted.
extension Store {
    static func channel(from row: Row) -> ChannelRecord {
        ChannelRecord(seq: row["seq"], id: row["id"], name: row["name"], latencyMode: row["latency_mode"], type: row["type"],
                      preset: row["preset"], insecureIngest: row["insecure_ingest"], containerFormat: row["container_format"],
                      tags: JSONColumn.decode([String: String].self, row["tags"], default: [:]),
                      streamKeyId: row["stream_key_id"], streamKeyValue: row["stream_key_value"])
    }

    func insertChannel(_ record: ChannelRecord) async throws -> ChannelRecord {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO channel(id, name, latency_mode, type, preset, insecure_ingest, container_format, tags,
                                    stream_key_id, stream_key_value, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [record.id, record.name, record.latencyMode, record.type, record.preset, record.insecureIngest,
                                 record.containerFormat, JSONColumn.encode(record.tags), record.streamKeyId, record.streamKeyValue,
                                 Date().unix])
            var inserted = record
            inserted.seq = db.lastInsertedRowID
            return inserted
        }
    }

    func channel(id: String) async throws -> ChannelRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM channel WHERE id = ?", arguments: [id]).map(Store.channel(from:))
        }
    }

    /// Channels in creation order after `afterSeq`; `name`: only channels of exactly that name.
    func channels(name: String?, afterSeq: Int64, limit: Int) async throws -> [ChannelRecord] {
        try await read { db in
            if let name {
                return try Row.fetchAll(db, sql: "SELECT * FROM channel WHERE name = ? AND seq > ? ORDER BY seq LIMIT ?",
                                        arguments: [name, afterSeq, limit]).map(Store.channel(from:))
            }
            return try Row.fetchAll(db, sql: "SELECT * FROM channel WHERE seq > ? ORDER BY seq LIMIT ?", arguments: [afterSeq, limit])
                .map(Store.channel(from:))
        }
    }

    func deleteChannel(id: String) async throws -> DeleteOutcome {
        try await write { db in
            if let user = try Store.compositionFeeding(db, channelId: id) { return .inUse(compositionId: user) }
            try db.execute(sql: "DELETE FROM channel WHERE id = ?", arguments: [id])
            return db.changesCount > 0 ? .deleted : .notFound
        }
    }

    /// The live composition feeding `channelId`, if any.
    static func compositionFeeding(_ db: Database, channelId: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT id FROM composition WHERE channel_id = ? AND state IN \(Store.liveStatesSQL) LIMIT 1",
                            arguments: [channelId])
    }
}
