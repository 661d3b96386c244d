package import Hangar
import PostgresNIO

extension PostgresEngine {
    /// Creates the store's schema and tables, or upgrades them step by step, in one transaction; refuses a
    /// schema written by a newer Hangar.
    ///
    /// Safe to run from any number of processes at once: an up-to-date schema is only read (no lock); otherwise
    /// the creating transaction first takes a transaction-scoped advisory lock on the schema's name
    /// (`pg_advisory_xact_lock`), then `CREATE SCHEMA IF NOT EXISTS`, then reads the version again under the
    /// lock. The others wait on the lock, then find the work done: the schema is created once, without error.
    ///
    /// - Throws: ``HangarError/Code/newerSchema`` when the schema's version is newer than this code writes (it
    ///   is left as it is), or what the transaction throws.
    package func prepareSchema() async throws(HangarError) {
        let current = sql.currentVersion
        if let version = try await existingSchemaVersion() {
            try checkNotNewer(version)
            if version == current { return }
        }
        do {
            try await withTransaction(PostgresTransactionOptions(isolation: .readCommitted, readOnly: false)) {
                transaction in
                var lock = PostgresBindings()
                lock.append(sql.migrationLockName)
                // First of all: the statements after it see every commit made before it was granted.
                try await transaction.execute(sql.migrationLock, lock)
                try await transaction.execute(sql.createSchema)
                try await transaction.execute(sql.createVersionTable)
                let version = try await transaction.scalar(sql.schemaVersion, as: Int64.self) ?? 0
                try checkNotNewer(version)
                guard version < current else { return }
                for step in sql.steps[Int(version)...] {
                    for statement in step { try await transaction.execute(statement) }
                }
                var binds = PostgresBindings()
                binds.append(current)
                try await transaction.execute(sql.setSchemaVersion, binds)
                // Version 0: the tables were just created.
                instruments.logger.log(
                    level: version == 0 ? .info : .notice, version == 0 ? "Store created" : "Store schema upgraded",
                    metadata: [
                        "schema": .string(sql.schema), "from_version": .stringConvertible(version),
                        "schema_version": .stringConvertible(current),
                    ])
            }
        } catch {
            throw HangarError.postgres(error, sql: nil, phase: .statement)
        }
    }

    /// Throws unless the schema exists at this Hangar's version (a read-only open creates and upgrades nothing):
    /// ``HangarError/Code/readOnly`` for a missing or older schema, ``HangarError/Code/newerSchema`` for a newer.
    package func requireCurrentSchema() async throws(HangarError) {
        guard let version = try await existingSchemaVersion() else {
            throw HangarError(
                .readOnly, "The PostgreSQL schema \(sql.schema) holds no store; a read-only open creates none")
        }
        try checkNotNewer(version)
        guard version == sql.currentVersion else {
            throw HangarError(
                .readOnly,
                "The PostgreSQL schema \(sql.schema) has store schema version \(version), older than this Hangar's "
                    + "(\(sql.currentVersion)); open it read-write once to upgrade it")
        }
    }

    /// The schema's version, read without locking; `nil` when it has no version table yet.
    package func existingSchemaVersion() async throws(HangarError) -> Int64? {
        do {
            return try await withTransaction(.read) { transaction -> Int64? in
                guard try await transaction.scalar(sql.versionTableExists, as: Bool.self) == true else { return nil }
                return try await transaction.scalar(sql.schemaVersion, as: Int64.self) ?? 0
            }
        } catch {
            throw HangarError.postgres(error, sql: nil, phase: .statement)
        }
    }

    private func checkNotNewer(_ version: Int64) throws(HangarError) {
        guard version <= sql.currentVersion else {
            throw HangarError(
                .newerSchema,
                "The PostgreSQL schema \(sql.schema) has store schema version \(version); this Hangar reads up to "
                    + "\(sql.currentVersion). It was not opened or changed")
        }
    }
}
