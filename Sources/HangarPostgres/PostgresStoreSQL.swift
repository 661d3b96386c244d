/// The PostgreSQL schema of a store and every statement run on it, in one place: the same tables as the SQLite
/// store's (`StoreSchema`, `StoreSQL` in Hangar), in the configured schema, in PostgreSQL's syntax (`$1`
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
        [
            [
                """
                CREATE TABLE \(s).documents (
                    collection text COLLATE "C" NOT NULL,
                    key text COLLATE "C" NOT NULL,
                    class_tag text COLLATE "C",
                    major bigint NOT NULL,
                    minor bigint NOT NULL,
                    revision bigint NOT NULL,
                    created_at double precision NOT NULL,
                    updated_at double precision NOT NULL,
                    body bytea NOT NULL,
                    PRIMARY KEY (collection, key)
                )
                """,
                "CREATE INDEX documents_by_class_tag ON \(s).documents (collection, class_tag)",
                """
                CREATE TABLE \(s).history (
                    collection text COLLATE "C" NOT NULL,
                    key text COLLATE "C" NOT NULL,
                    revision bigint NOT NULL,
                    class_tag text COLLATE "C",
                    major bigint NOT NULL,
                    minor bigint NOT NULL,
                    saved_at double precision NOT NULL,
                    body bytea NOT NULL,
                    PRIMARY KEY (collection, key, revision)
                )
                """,
                """
                CREATE TABLE \(s).key_revisions (
                    collection text COLLATE "C" NOT NULL,
                    key text COLLATE "C" NOT NULL,
                    revision bigint NOT NULL,
                    PRIMARY KEY (collection, key)
                )
                """,
                """
                CREATE TABLE \(s).index_entries (
                    collection text COLLATE "C" NOT NULL,
                    name text COLLATE "C" NOT NULL,
                    value bytea NOT NULL,
                    key text COLLATE "C" NOT NULL,
                    PRIMARY KEY (collection, name, value, key)
                )
                """,
                "CREATE INDEX index_entries_by_key ON \(s).index_entries (collection, key)",
                """
                CREATE TABLE \(s).index_catalog (
                    collection text COLLATE "C" NOT NULL,
                    name text COLLATE "C" NOT NULL,
                    fingerprint text NOT NULL,
                    PRIMARY KEY (collection, name)
                )
                """,
                """
                CREATE TABLE \(s).changes (
                    sequence bigint PRIMARY KEY,
                    transaction_id bigint NOT NULL,
                    collection text COLLATE "C" NOT NULL,
                    key text COLLATE "C" NOT NULL,
                    revision bigint NOT NULL,
                    kind text NOT NULL,
                    major bigint NOT NULL,
                    minor bigint NOT NULL,
                    class_tag text COLLATE "C",
                    committed_at double precision NOT NULL
                )
                """,
                "CREATE INDEX changes_by_collection ON \(s).changes (collection, sequence)",
                """
                CREATE TABLE \(s).change_counter (
                    id integer PRIMARY KEY CHECK (id = 1),
                    last_sequence bigint NOT NULL,
                    last_transaction bigint NOT NULL,
                    pruned_through bigint NOT NULL
                )
                """,
                """
                INSERT INTO \(s).change_counter (id, last_sequence, last_transaction, pruned_through)
                VALUES (1, 0, 0, 0)
                """,
            ],
            // 2: encryption at rest. Each body's key id (NULL: plaintext, as every body stored before this step).
            [
                "ALTER TABLE \(s).documents ADD COLUMN key_id text",
                "ALTER TABLE \(s).history ADD COLUMN key_id text",
            ],
            // 3: the change feed numbered after commit (PostgresStoreSQL+Changes.swift).
            ChangeStatements.numberedAfterCommitStep(s),
            // 4: a save or delete in one round trip (PostgresStoreSQL+WriteDocument.swift).
            WriteStatements.writeDocumentStep(
                s, lockSeed: LockStatements.seed(s.replacingOccurrences(of: "\"", with: ""))),
            // 5: a single save or delete in one statement in autocommit (PostgresStoreSQL+WriteDocument.swift).
            WriteStatements.writeDocumentAloneStep(s),
            // 6: fewer statements and row writes per save (PostgresStoreSQL+WriteDocumentLean.swift): a save no
            // longer records the key's last revision (a delete does); and the class-tag index holds only documents
            // that have a class tag (a query by tag, `class_tag = $2`, still uses it).
            WriteStatements.writeDocumentLeanStep(
                s, lockSeed: LockStatements.seed(s.replacingOccurrences(of: "\"", with: "")))
                + [
                    "DROP INDEX \(s).documents_by_class_tag",
                    """
                    CREATE INDEX documents_by_class_tag ON \(s).documents (collection, class_tag)
                        WHERE class_tag IS NOT NULL
                    """,
                ],
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
