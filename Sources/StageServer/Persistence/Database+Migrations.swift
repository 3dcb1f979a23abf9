import GRDB

/// Versioned schema of the embedded SQLite store. Add a migration; never edit a shipped one.
enum StoreMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-initial") { db in
            try db.execute(sql: """
                CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE stage (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    name TEXT NOT NULL,
                    tags TEXT NOT NULL,
                    created_at REAL NOT NULL);
                CREATE TABLE participant_token (
                    participant_id TEXT PRIMARY KEY,
                    stage_id TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    attributes TEXT NOT NULL,
                    capabilities TEXT NOT NULL,
                    duration INTEGER NOT NULL,
                    expires_at REAL NOT NULL,
                    issued_at REAL NOT NULL);
                CREATE TABLE revoked_participant (
                    participant_id TEXT PRIMARY KEY,
                    stage_id TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    revoked_at REAL NOT NULL);
                CREATE TABLE stage_session (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    session_id TEXT NOT NULL UNIQUE,
                    stage_id TEXT NOT NULL,
                    start_time REAL NOT NULL,
                    end_time REAL);
                CREATE INDEX stage_session_by_stage ON stage_session(stage_id, seq);
                CREATE TABLE participant (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    session_id TEXT NOT NULL,
                    participant_id TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    attributes TEXT NOT NULL,
                    state TEXT NOT NULL,
                    first_join_time REAL NOT NULL,
                    published INTEGER NOT NULL,
                    sdk_version TEXT,
                    os_name TEXT,
                    os_version TEXT,
                    UNIQUE(session_id, participant_id));
                CREATE TABLE participant_event (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    session_id TEXT NOT NULL,
                    participant_id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    event_time REAL NOT NULL,
                    remote_participant_id TEXT,
                    error_code TEXT);
                CREATE INDEX participant_event_by_participant ON participant_event(session_id, participant_id, seq);
                CREATE TABLE public_key (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    name TEXT NOT NULL,
                    material TEXT NOT NULL,
                    fingerprint TEXT NOT NULL UNIQUE,
                    tags TEXT NOT NULL,
                    created_at REAL NOT NULL);
                """)
        }
        return migrator
    }
}
