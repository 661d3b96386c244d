/// The PostgreSQL schema of a store and every statement run on it, in one place: the same tables as the SQLite
/// store's (`SQLiteSchema`, `SQLiteSQL` in HangarSQLite), in the configured schema, in PostgreSQL's syntax (`$1`
/// parameters; `$1` is always the collection where there is one). Every name is qualified with the schema, so
/// nothing depends on a connection's `search_path`.
///
/// Types: keys, collections, class tags and index names are `text COLLATE "C"` (bytewise order, as SQLite's);
/// bodies are `bytea` (the same binary property lists); index values are `bytea` holding the exact
/// `IndexValue` encoding the SQLite store uses (`bytea` compares as `memcmp`, then length, like SQLite's BLOBs);
/// revisions, versions and sequences are `bigint`; times are `double precision` seconds since 1970, as SQLite
/// stores them. Bind bytes as `ByteBuffer` (or `Data`): postgres-nio sends a `[UInt8]` as a `"char"[]` array,
/// not as `bytea`.
///
/// The tables:
///
/// - `schema_version`: one row, the schema version (``steps``.count once up to date).
/// - `documents`, `history`, `key_revisions`, `index_entries`, `index_catalog`, `changes`, `change_counter`: as
///   in SQLite. `mirror_failures` is not here: mirror files are a local-disk feature of the SQLite store.
/// - `pending_changes`, the sequence `change_tickets` and the function `number_changes`: the feed's changes
///   between their transaction's commit and their numbering (``ChangeStatements``).
///
/// Where it lives: the schema's upgrade steps, frozen once released, one file each under `Schema/Steps/`, named by
/// step number (`Step6-WriteDocument.swift` installs step 6); the statements the engine runs today under
/// `Statements/`. A function a later step replaces keeps its earlier step's text (a step is never edited), so the
/// live definitions are: `write_document` from step 6, `write_document_alone` from step 5, `note_changes`,
/// `number_changes` and `number_pending_changes` from step 3, `commit_token` and `read_document` from step 7.
package struct PostgresStoreSQL: Sendable {
    /// The schema's name, as validated (``PostgresStoreConfiguration/validateSchema(_:)``).
    package let schema: String
    /// The schema's name quoted as an identifier.
    package let quotedSchema: String

    /// The SQL of the store in `schema`, which must have been validated (a lowercase identifier).
    package init(schema: String) {
        self.schema = schema
        self.quotedSchema = "\"\(schema)\""
        let s = quotedSchema
        steps = Self.makeSteps(s)
        createSchema = "CREATE SCHEMA IF NOT EXISTS \(s)"
        createVersionTable = """
            CREATE TABLE IF NOT EXISTS \(s).schema_version (
                id integer PRIMARY KEY CHECK (id = 1),
                version bigint NOT NULL
            )
            """
        versionTableExists = "SELECT to_regclass('\(s).schema_version') IS NOT NULL"
        schemaVersion = "SELECT version FROM \(s).schema_version WHERE id = 1"
        setSchemaVersion = """
            INSERT INTO \(s).schema_version (id, version) VALUES (1, $1)
            ON CONFLICT (id) DO UPDATE SET version = excluded.version
            """
        documents = DocumentStatements(s)
        history = HistoryStatements(s)
        indexes = IndexStatements(s)
        changes = ChangeStatements(s, schema: schema)
        locks = LockStatements(s)
        writes = WriteStatements(s)
    }

    // MARK: Schema and version

    /// The advisory lock key (`pg_advisory_xact_lock($1)` with this text's 64-bit hash, `hashtextextended`) that
    /// serializes creating and upgrading this schema across processes.
    package var migrationLockName: String { "hangar schema \(schema)" }
    /// Takes the migration lock for the rest of the transaction ($1: ``migrationLockName``).
    package let migrationLock = "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))"
    package let createSchema: String
    package let createVersionTable: String
    /// `true` when the version table exists (without failing when the schema does not).
    package let versionTableExists: String
    /// The version (no row: 0).
    package let schemaVersion: String
    /// Records version $1.
    package let setSchemaVersion: String

    /// The schema version this code writes.
    package var currentVersion: Int64 { Int64(steps.count) }
    /// Step `n` upgrades the schema from version `n` to `n + 1`; each statement is run on its own (the extended
    /// protocol takes one statement at a time), all of them in the migrating transaction. Frozen once released.
    package let steps: [[String]]

    private static func makeSteps(_ s: String) -> [[String]] {
        let lockSeed = LockStatements.seed(s.replacingOccurrences(of: "\"", with: ""))
        return [
            step1Tables(s),
            step2KeyIDs(s),
            ChangeStatements.step3ChangesNumberedAfterCommit(s),
            WriteStatements.step4WriteDocument(s, lockSeed: lockSeed),
            WriteStatements.step5WriteDocumentAlone(s),
            WriteStatements.step6WriteDocument(s, lockSeed: lockSeed),
            step7ReadsPlannedOnce(s),
        ]
    }

    // MARK: Statements

    /// `documents`.
    package let documents: DocumentStatements
    /// `history` and `key_revisions`.
    package let history: HistoryStatements
    /// `index_entries` and `index_catalog`.
    package let indexes: IndexStatements
    /// `changes`, `change_counter`, `pending_changes` and the feed's numbering.
    package let changes: ChangeStatements
    /// Transaction-scoped advisory locks.
    package let locks: LockStatements
    /// A save or delete in one statement (`write_document`).
    package let writes: WriteStatements
}
