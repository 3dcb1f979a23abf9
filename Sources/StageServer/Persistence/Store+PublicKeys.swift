import Foundation
import GRDB

extension Store {
    static func publicKey(from row: Row) -> PublicKeyRecord {
        PublicKeyRecord(seq: row["seq"], id: row["id"], name: row["name"], material: row["material"],
                        fingerprint: row["fingerprint"], tags: JSONColumn.decode([String: String].self, row["tags"], default: [:]))
    }

    /// Inserts a key; returns nil when a key with the same fingerprint exists.
    func insertPublicKey(id: String, name: String, material: String, fingerprint: String, tags: [String: String]) async throws -> PublicKeyRecord? {
        try await write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM public_key WHERE fingerprint = ?", arguments: [fingerprint]) == true {
                return nil
            }
            try db.execute(sql: "INSERT INTO public_key(id, name, material, fingerprint, tags, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [id, name, material, fingerprint, JSONColumn.encode(tags), Date().unix])
            return PublicKeyRecord(seq: db.lastInsertedRowID, id: id, name: name, material: material, fingerprint: fingerprint, tags: tags)
        }
    }

    func publicKey(id: String) async throws -> PublicKeyRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM public_key WHERE id = ?", arguments: [id]).map(Store.publicKey(from:))
        }
    }

    func publicKeys(afterSeq: Int64, limit: Int) async throws -> [PublicKeyRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM public_key WHERE seq > ? ORDER BY seq LIMIT ?", arguments: [afterSeq, limit])
                .map(Store.publicKey(from:))
        }
    }

    func deletePublicKey(id: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM public_key WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }
}
