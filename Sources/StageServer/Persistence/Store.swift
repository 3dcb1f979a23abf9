import Foundation
import GRDB
import Synchronization

/// The embedded SQLite store (GRDB). All access goes through one serial `DatabaseQueue`, and
/// every control-plane read or write first runs the signaling writes enqueued before it, so control-plane
/// reads are consistent with every signaling event that happened before them, even though
/// signaling writes are asynchronous.
///
/// Signaling writes (`enqueue`) are batched and run in the background: the first one of a
/// burst wakes the store's writer thread, which waits `batchWindow` for company and then runs
/// every job enqueued by then in one transaction. A fan-out of 500 subscriptions costs one
/// commit instead of dozens (each commit rewrites the index pages its burst touched), and the
/// writer thread runs at nice 10, so under load the kernel serves signaling and media first:
/// in the signaling benchmark this event log was a quarter of the server's CPU.
final class Store: Sendable {
    let queue: DatabaseQueue
    typealias Job = @Sendable (Database) throws -> Void
    private let pending = Mutex<[(label: String, job: Job)]>([])
    static let batchWindow: TimeInterval = 0.1
    /// Signalled by the first job of a burst.
    private let wakeWriter = DispatchSemaphore(value: 0)

    /// Opens (or creates) the database. It holds every participant token issued and the stream
    /// keys of channels, so it and its WAL files are readable by the server's user only (0600),
    /// like the signing key beside it (SQLite gives the WAL files the database's own mode).
    init(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -32768; PRAGMA wal_autocheckpoint = 8192;")
        }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        }
        try StoreMigrations.migrator.migrate(queue)
        startWriterThread()
    }

    /// The background writer; it lives as long as the process.
    private func startWriterThread() {
        let thread = Thread { [self] in
            // On Linux the nice value is per thread; `who` 0 is the calling thread.
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            while true {
                wakeWriter.wait()
                Thread.sleep(forTimeInterval: Self.batchWindow)
                do { try queue.write { [self] db in runPending(db) } } catch {
                    ServerLog.store.error("store batch failed", metadata: ["error": "\(error)"])
                }
            }
        }
        thread.name = "store-writer"
        thread.start()
    }

    /// Enqueues a write without waiting. Writes run in the order they were enqueued, before any
    /// read or write submitted after this call.
    func enqueue(_ label: String, _ work: @escaping Job) {
        let first = pending.withLock { jobs in
            jobs.append((label, work))
            return jobs.count == 1
        }
        if first { wakeWriter.signal() }
    }

    /// Runs every enqueued job (inside the caller's transaction); a failing job is logged and skipped.
    private func runPending(_ db: Database) {
        let jobs = pending.withLock { jobs in
            let taken = jobs
            jobs.removeAll()
            return taken
        }
        for entry in jobs {
            do { try entry.job(db) } catch {
                ServerLog.store.error("store write failed", metadata: ["write": "\(entry.label)", "error": "\(error)"])
            }
        }
    }

    private var hasPending: Bool { pending.withLock { !$0.isEmpty } }

    /// Runs the enqueued writes now (before a read, and at shutdown).
    func flush() async throws {
        guard hasPending else { return }
        try await queue.write { [self] db in runPending(db) }
    }

    func read<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await flush()
        return try await queue.read(work)
    }

    /// A control-plane write, after the enqueued writes (in their own transaction: a refused
    /// write rolls back only itself).
    func write<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await flush()
        return try await queue.write(work)
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
