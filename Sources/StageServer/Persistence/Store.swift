import Foundation
import GRDB
import Synchronization

/// The embedded SQLite store (GRDB). All access goes through one serial `DatabaseQueue`, so a
/// read submitted after a write sees it: control-plane reads are consistent with every
/// signaling event that happened before them, even though signaling writes are asynchronous.
///
/// Signaling writes (`enqueue`) are batched: the jobs that pile up while the queue is busy run
/// in one transaction, so a burst of 500 subscriptions costs a few commits, not 500.
final class Store: Sendable {
    let queue: DatabaseQueue
    typealias Job = @Sendable (Database) throws -> Void
    private let pending = Mutex<[(label: String, job: Job)]>([])

    init(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")
        }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try StoreMigrations.migrator.migrate(queue)
    }

    /// Enqueues a write without waiting. Writes run in the order they were enqueued, before any
    /// read submitted after this call.
    func enqueue(_ label: String, _ work: @escaping Job) {
        let first = pending.withLock { jobs in
            jobs.append((label, work))
            return jobs.count == 1
        }
        guard first else { return }
        // Runs when the queue gets to it, taking every job enqueued by then.
        let drain: @Sendable (Database) throws -> Void = { [self] db in
            for entry in takePending() {
                do { try entry.job(db) } catch {
                    ServerLog.store.error("store write failed", metadata: ["write": "\(entry.label)", "error": "\(error)"])
                }
            }
        }
        queue.asyncWrite(drain) { _, result in
            if case .failure(let error) = result {
                ServerLog.store.error("store batch failed", metadata: ["error": "\(error)"])
            }
        }
    }

    private func takePending() -> [(label: String, job: Job)] {
        pending.withLock { jobs in
            let taken = jobs
            jobs.removeAll()
            return taken
        }
    }

    func read<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await queue.read(work)
    }

    func write<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await queue.write(work)
    }

    /// A value kept in the `meta` table, created by `make` on first use.
    func metaValue(_ key: String, make: @escaping @Sendable () -> String) throws -> String {
        try queue.write { db in
            if let value = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]) {
                return value
            }
            let value = make()
            try db.execute(sql: "INSERT INTO meta(key, value) VALUES (?, ?)", arguments: [key, value])
            return value
        }
    }
}

extension Date {
    var unix: Double { timeIntervalSince1970 }
    init(unix: Double) { self.init(timeIntervalSince1970: unix) }
}
