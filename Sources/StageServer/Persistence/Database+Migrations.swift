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
        migrator.registerMigration("v2-composition") { db in
            try db.execute(sql: """
                CREATE TABLE encoder_configuration (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    name TEXT NOT NULL,
                    width INTEGER NOT NULL,
                    height INTEGER NOT NULL,
                    framerate REAL NOT NULL,
                    bitrate INTEGER NOT NULL,
                    tags TEXT NOT NULL,
                    created_at REAL NOT NULL);
                CREATE TABLE storage_configuration (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    name TEXT NOT NULL,
                    bucket_name TEXT NOT NULL,
                    tags TEXT NOT NULL,
                    created_at REAL NOT NULL);
                CREATE TABLE channel (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    name TEXT NOT NULL,
                    latency_mode TEXT NOT NULL,
                    type TEXT NOT NULL,
                    preset TEXT NOT NULL,
                    insecure_ingest INTEGER NOT NULL,
                    container_format TEXT NOT NULL,
                    tags TEXT NOT NULL,
                    stream_key_id TEXT NOT NULL UNIQUE,
                    stream_key_value TEXT NOT NULL,
                    created_at REAL NOT NULL);
                CREATE INDEX channel_by_name ON channel(name, seq);
                CREATE TABLE composition (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    stage_id TEXT NOT NULL,
                    state TEXT NOT NULL,
                    state_reason TEXT,
                    layout TEXT NOT NULL,
                    destinations TEXT NOT NULL,
                    tags TEXT NOT NULL,
                    start_time REAL NOT NULL,
                    end_time REAL,
                    idempotency_token TEXT UNIQUE,
                    request_digest TEXT NOT NULL,
                    channel_id TEXT,
                    stream_id TEXT NOT NULL,
                    encoder_configuration_ids TEXT NOT NULL,
                    storage_configuration_ids TEXT NOT NULL);
                CREATE INDEX composition_by_stage ON composition(stage_id, seq);
                CREATE INDEX composition_by_channel ON composition(channel_id, state);
                CREATE INDEX composition_by_state ON composition(state);
                """)
        }
        return migrator
    }
}
