import Foundation
import GRDB

/// Encoder and storage configurations. A delete is refused, in the same transaction, while a
/// live composition (STARTING, ACTIVE, STOPPING) uses the configuration.
extension Store {
    /// What a delete of a configuration or channel found.
    enum DeleteOutcome: Sendable, Equatable {
        case deleted
        case notFound
        /// A live composition uses it.
        case inUse(compositionId: String)
    }

    static func encoderConfiguration(from row: Row) -> EncoderConfigurationRecord {
        EncoderConfigurationRecord(seq: row["seq"], id: row["id"], name: row["name"], width: row["width"], height: row["height"],
                                   framerate: row["framerate"], bitrate: row["bitrate"],
                                   tags: JSONColumn.decode([String: String].self, row["tags"], default: [:]))
    }

    func insertEncoderConfiguration(_ record: EncoderConfigurationRecord) async throws -> EncoderConfigurationRecord {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO encoder_configuration(id, name, width, height, framerate, bitrate, tags, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [record.id, record.name, record.width, record.height, record.framerate, record.bitrate,
                                 JSONColumn.encode(record.tags), Date().unix])
            var inserted = record
            inserted.seq = db.lastInsertedRowID
            return inserted
        }
    }

    func encoderConfiguration(id: String) async throws -> EncoderConfigurationRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM encoder_configuration WHERE id = ?", arguments: [id])
                .map(Store.encoderConfiguration(from:))
        }
    }

    func encoderConfigurations(afterSeq: Int64, limit: Int) async throws -> [EncoderConfigurationRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM encoder_configuration WHERE seq > ? ORDER BY seq LIMIT ?",
                             arguments: [afterSeq, limit]).map(Store.encoderConfiguration(from:))
        }
    }

    func deleteEncoderConfiguration(id: String) async throws -> DeleteOutcome {
        try await write { db in
            if let user = try Store.liveComposition(db, using: "encoder_configuration_ids", id: id) { return .inUse(compositionId: user) }
            try db.execute(sql: "DELETE FROM encoder_configuration WHERE id = ?", arguments: [id])
            return db.changesCount > 0 ? .deleted : .notFound
        }
    }

    static func storageConfiguration(from row: Row) -> StorageConfigurationRecord {
        StorageConfigurationRecord(seq: row["seq"], id: row["id"], name: row["name"], bucketName: row["bucket_name"],
                                   tags: JSONColumn.decode([String: String].self, row["tags"], default: [:]))
    }

    func insertStorageConfiguration(_ record: StorageConfigurationRecord) async throws -> StorageConfigurationRecord {
        try await write { db in
            try db.execute(sql: "INSERT INTO storage_configuration(id, name, bucket_name, tags, created_at) VALUES (?, ?, ?, ?, ?)",
                           arguments: [record.id, record.name, record.bucketName, JSONColumn.encode(record.tags), Date().unix])
            var inserted = record
            inserted.seq = db.lastInsertedRowID
            return inserted
        }
    }

    func storageConfiguration(id: String) async throws -> StorageConfigurationRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM storage_configuration WHERE id = ?", arguments: [id])
                .map(Store.storageConfiguration(from:))
        }
    }

    func storageConfigurations(afterSeq: Int64, limit: Int) async throws -> [StorageConfigurationRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM storage_configuration WHERE seq > ? ORDER BY seq LIMIT ?",
                             arguments: [afterSeq, limit]).map(Store.storageConfiguration(from:))
        }
    }

    func deleteStorageConfiguration(id: String) async throws -> DeleteOutcome {
        try await write { db in
            if let user = try Store.liveComposition(db, using: "storage_configuration_ids", id: id) { return .inUse(compositionId: user) }
            try db.execute(sql: "DELETE FROM storage_configuration WHERE id = ?", arguments: [id])
            return db.changesCount > 0 ? .deleted : .notFound
        }
    }

    /// A live composition whose JSON id list `column` holds `id` (ids are alphanumeric, so the
    /// quoted id matches only a whole element).
    static func liveComposition(_ db: Database, using column: String, id: String) throws -> String? {
        try String.fetchOne(db, sql: """
            SELECT id FROM composition WHERE state IN \(Store.liveStatesSQL) AND instr(\(column), ?) > 0 LIMIT 1
            """, arguments: ["\"\(id)\""])
    }

    /// `('STARTING', 'ACTIVE', 'STOPPING')`
    static let liveStatesSQL = "(" + CompositionState.live.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
}
