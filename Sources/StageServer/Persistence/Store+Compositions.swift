import Foundation
import GRDB
import StageLayout
import StageProtocol

/// Compositions. Their start is one transaction that checks everything another request could
/// change meanwhile (idempotency token, stage, channel, configurations, quota); their state
/// changes are read-modify-write transactions, so two reports never lose one another.
extension Store {
    /// What `insertComposition` did.
    enum CompositionInsertOutcome: Sendable, Equatable {
        case inserted(CompositionRecord)
        /// The idempotency token was used before for the same request: that composition.
        case existing(CompositionRecord)
        /// The idempotency token was used before for another request.
        case tokenReused(compositionId: String)
        case stageMissing
        /// A configuration or channel named by the request was deleted meanwhile.
        case resourceMissing(id: String)
        case channelBusy(compositionId: String)
        case quotaExceeded(live: Int)
    }

    /// The channel, encoder- and storage-configuration ids a composition needs to exist.
    struct CompositionRequirements: Sendable {
        var channelIds: [String]
        var encoderConfigurationIds: [String]
        var storageConfigurationIds: [String]
    }

    func insertComposition(_ record: CompositionRecord, requires: CompositionRequirements,
                           maxLive: Int) async throws -> CompositionInsertOutcome {
        try await write { db in
            if let token = record.idempotencyToken,
               let previous = try Row.fetchOne(db, sql: "SELECT * FROM composition WHERE idempotency_token = ?", arguments: [token])
                .map(Store.composition(from:)) {
                return previous.requestDigest == record.requestDigest ? .existing(previous) : .tokenReused(compositionId: previous.id)
            }
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM stage WHERE id = ?", arguments: [record.stageId]) == true else {
                return .stageMissing
            }
            for (table, ids) in [("channel", requires.channelIds), ("encoder_configuration", requires.encoderConfigurationIds),
                                 ("storage_configuration", requires.storageConfigurationIds)] {
                for id in ids where try Bool.fetchOne(db, sql: "SELECT 1 FROM \(table) WHERE id = ?", arguments: [id]) != true {
                    return .resourceMissing(id: id)
                }
            }
            if let channelId = record.channelId, let user = try Store.compositionFeeding(db, channelId: channelId) {
                return .channelBusy(compositionId: user)
            }
            let live = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM composition WHERE state IN \(Store.liveStatesSQL)") ?? 0
            guard live < maxLive else { return .quotaExceeded(live: live) }
            try db.execute(sql: """
                INSERT INTO composition(id, stage_id, state, state_reason, layout, destinations, tags, start_time, end_time,
                                        idempotency_token, request_digest, channel_id, stream_id, encoder_configuration_ids,
                                        storage_configuration_ids)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: Store.columns(of: record))
            var inserted = record
            inserted.seq = db.lastInsertedRowID
            return .inserted(inserted)
        }
    }

    func composition(id: String) async throws -> CompositionRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM composition WHERE id = ?", arguments: [id]).map(Store.composition(from:))
        }
    }

    /// Compositions in creation order after `afterSeq`, optionally of one stage and/or using one
    /// encoder configuration.
    func compositions(stageId: String?, encoderConfigurationId: String?, afterSeq: Int64, limit: Int) async throws -> [CompositionRecord] {
        try await read { db in
            var sql = "SELECT * FROM composition WHERE seq > ?"
            var arguments: StatementArguments = [afterSeq]
            if let stageId { sql += " AND stage_id = ?"; _ = arguments.append(contentsOf: [stageId]) }
            if let encoderConfigurationId {
                sql += " AND instr(encoder_configuration_ids, ?) > 0"; _ = arguments.append(contentsOf: ["\"\(encoderConfigurationId)\""])
            }
            sql += " ORDER BY seq LIMIT ?"
            _ = arguments.append(contentsOf: [limit])
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map(Store.composition(from:))
        }
    }

    /// Compositions in `states`, in creation order.
    func compositions(in states: [CompositionState]) async throws -> [CompositionRecord] {
        try await read { db in
            let list = "(" + states.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
            return try Row.fetchAll(db, sql: "SELECT * FROM composition WHERE state IN \(list) ORDER BY seq").map(Store.composition(from:))
        }
    }

    /// The live composition feeding `channelId`, if any.
    func compositionFeeding(channelId: String) async throws -> CompositionRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM composition WHERE channel_id = ? AND state IN \(Store.liveStatesSQL) ORDER BY seq DESC LIMIT 1",
                             arguments: [channelId]).map(Store.composition(from:))
        }
    }

    /// Changes one composition in a transaction. `change` returns false to leave it as it was.
    /// - Returns: the composition after the change (or as it was) and whether it changed; nil when there is none.
    func updateComposition(id: String, _ change: @escaping @Sendable (inout CompositionRecord) -> Bool)
        async throws -> (record: CompositionRecord, changed: Bool)? {
        try await write { db in
            guard var record = try Row.fetchOne(db, sql: "SELECT * FROM composition WHERE id = ?", arguments: [id])
                .map(Store.composition(from:)) else { return nil }
            guard change(&record) else { return (record, false) }
            try Store.save(record, db)
            return (record, true)
        }
    }

    /// Every composition an earlier process left STARTING, ACTIVE or STOPPING becomes STOPPED
    /// (its compositor went with that process), like `closeDanglingSessions`.
    /// - Returns: how many were stopped.
    @discardableResult
    func stopDanglingCompositions(at time: Date) async throws -> Int {
        try await write { db in
            let dangling = try Row.fetchAll(db, sql: "SELECT * FROM composition WHERE state IN \(Store.liveStatesSQL)").map(Store.composition(from:))
            for var record in dangling {
                record.finish(.stopped, reason: "the server restarted", at: time)
                try Store.save(record, db)
            }
            return dangling.count
        }
    }

    static func save(_ record: CompositionRecord, _ db: Database) throws {
        try db.execute(sql: """
            UPDATE composition SET state = ?, state_reason = ?, destinations = ?, end_time = ? WHERE id = ?
            """, arguments: [record.state.rawValue, record.stateReason, JSONColumn.encode(record.destinations),
                             record.endTime?.unix, record.id])
    }

    static func columns(of record: CompositionRecord) -> StatementArguments {
        [record.id, record.stageId, record.state.rawValue, record.stateReason, JSONColumn.encode(record.layout),
         JSONColumn.encode(record.destinations), JSONColumn.encode(record.tags), record.startTime.unix, record.endTime?.unix,
         record.idempotencyToken, record.requestDigest, record.channelId, record.streamId,
         JSONColumn.encode(record.encoderConfigurationIds), JSONColumn.encode(record.storageConfigurationIds)]
    }

    static func composition(from row: Row) -> CompositionRecord {
        CompositionRecord(
            seq: row["seq"], id: row["id"], stageId: row["stage_id"],
            state: CompositionState(rawValue: row["state"]) ?? .failed, stateReason: row["state_reason"],
            layout: JSONColumn.decode(LayoutConfiguration.self, row["layout"], default: .grid(GridLayoutConfiguration())),
            destinations: JSONColumn.decode([DestinationRecord].self, row["destinations"], default: []),
            tags: JSONColumn.decode([String: String].self, row["tags"], default: [:]),
            startTime: Date(unix: row["start_time"]), endTime: (row["end_time"] as Double?).map(Date.init(unix:)),
            idempotencyToken: row["idempotency_token"], requestDigest: row["request_digest"], channelId: row["channel_id"],
            streamId: row["stream_id"],
            encoderConfigurationIds: JSONColumn.decode([String].self, row["encoder_configuration_ids"], default: []),
            storageConfigurationIds: JSONColumn.decode([String].self, row["storage_configuration_ids"], default: []))
    }
}

extension CompositionRecord {
    /// Ends the composition in `state` (STOPPED or FAILED): the end time is set, and every
    /// destination still running ends with it (FAILED with a failed composition, else STOPPED).
    mutating func finish(_ state: CompositionState, reason: String?, at time: Date) {
        self.state = state
        stateReason = reason
        endTime = endTime ?? time
        for index in destinations.indices where !destinations[index].state.isTerminal {
            destinations[index].state = state == .failed ? .failed : .stopped
            destinations[index].endTime = time
        }
    }
}
