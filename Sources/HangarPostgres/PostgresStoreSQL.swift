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

    /// Transaction-scoped advisory locks (`pg_advisory_xact_lock`, released at commit or rollback), on 64-bit
    /// hashes of names in this schema: two names with one hash only wait for each other, never miss a lock.
    package struct LockStatements: Sendable {
        /// The lock of key $2 in collection $1, whether or not a document is stored there: a writer takes it
        /// before reading the current row, so a check and the write after it are one step.
        package let lockKey: String
        /// The lock of value $3 in index $2 of collection $1: writers of one unique value take turns.
        package let lockIndexValue: String
        /// The lock of the index catalog ($1: the schema), while indexes are reconciled on open.
        package let lockIndexes: String

        init(_ s: String) {
            let schema = s.replacingOccurrences(of: "\"", with: "")
            lockKey =
                "SELECT pg_advisory_xact_lock(hashtextextended('key ' || $1 || chr(1) || $2, \(Self.seed(schema))))"
            lockIndexValue = """
                SELECT pg_advisory_xact_lock(
                    hashtextextended('index ' || $1 || chr(1) || $2 || chr(1) || encode($3, 'hex'), \(Self.seed(schema))))
                """
            lockIndexes = "SELECT pg_advisory_xact_lock(hashtextextended('indexes ' || $1, 0))"
        }

        /// A seed per schema, so stores in two schemas of one database do not share locks.
        static func seed(_ schema: String) -> Int64 {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in schema.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
            return Int64(bitPattern: hash)
        }
    }

    /// Statements on `documents`. A limit of NULL means none (PostgreSQL's `LIMIT NULL`, where SQLite's is -1).
    package struct DocumentStatements: Sendable {
        /// The columns a stored document is read from, in order.
        package static let columns = "revision, major, minor, class_tag, created_at, updated_at, body, key_id"
        /// ``columns`` of one document ($1 collection, $2 key).
        package let document: String
        package let documentExists: String
        /// revision, major, minor of the current document.
        package let currentRevision: String
        /// The same, locking the row until the transaction ends (a writer's read before it saves).
        package let currentRevisionForUpdate: String
        /// revision, major, minor, class_tag, key_id of the current document (a writer's read, under the key's lock).
        package let currentRow: String
        /// One row: revision, major, minor, class_tag, key_id of the current document (all NULL when there is none),
        /// then the last revision the key ever had (``HistoryStatements/lastRevision``; NULL for a key never
        /// saved): a save's read, under the key's lock, in one round trip.
        package let currentRowAndLastRevision: String
        package let collections: String
        package let countDocuments: String
        package let keys: String
        /// A page of keys ($2 limit or NULL, $3 offset).
        package let keysPageAscending: String
        package let keysPageDescending: String
        package let keysPageRecentlyUpdated: String
        /// The keys whose class tag is $2.
        package let keysByClassTag: String
        /// key, then ``columns``, of every document of a collection.
        package let documentsOfCollection: String
        /// The keys of documents older than version $2.$3.
        package let keysOlderThanVersion: String
        /// The keys of documents of a major newer than $2.
        package let keysNewerThanMajor: String
        /// $3 class tag, $4 major, $5 minor, $6 revision, $7 now (created and updated), $8 body, $9 key id.
        package let insertDocument: String
        /// Parameters as ``insertDocument`` ($7 is the update time).
        package let updateDocument: String
        /// ``insertDocument`` and ``HistoryStatements/setLastRevision`` (of $6) in one statement.
        package let insertDocumentSettingLastRevision: String
        /// ``updateDocument`` and ``HistoryStatements/setLastRevision`` (of $6) in one statement.
        package let updateDocumentSettingLastRevision: String
        package let deleteDocument: String

        init(_ s: String) {
            let columns = Self.columns
            document = "SELECT \(columns) FROM \(s).documents WHERE collection = $1 AND key = $2"
            documentExists = "SELECT 1 FROM \(s).documents WHERE collection = $1 AND key = $2"
            currentRevision = "SELECT revision, major, minor FROM \(s).documents WHERE collection = $1 AND key = $2"
            currentRevisionForUpdate = currentRevision + " FOR UPDATE"
            currentRow =
                "SELECT revision, major, minor, class_tag, key_id FROM \(s).documents WHERE collection = $1 AND key = $2"
            collections = "SELECT DISTINCT collection FROM \(s).documents ORDER BY collection"
            countDocuments = "SELECT count(*) FROM \(s).documents WHERE collection = $1"
            keys = "SELECT key FROM \(s).documents WHERE collection = $1 ORDER BY key"
            let page = "LIMIT $2::bigint OFFSET $3::bigint"
            keysPageAscending = "SELECT key FROM \(s).documents WHERE collection = $1 ORDER BY key ASC \(page)"
            keysPageDescending = "SELECT key FROM \(s).documents WHERE collection = $1 ORDER BY key DESC \(page)"
            keysPageRecentlyUpdated =
                "SELECT key FROM \(s).documents WHERE collection = $1 ORDER BY updated_at DESC, key ASC \(page)"
            keysByClassTag = "SELECT key FROM \(s).documents WHERE collection = $1 AND class_tag = $2 ORDER BY key"
            documentsOfCollection = "SELECT key, \(columns) FROM \(s).documents WHERE collection = $1 ORDER BY key"
            keysOlderThanVersion = """
                SELECT key FROM \(s).documents
                WHERE collection = $1 AND (major < $2 OR (major = $2 AND minor < $3)) ORDER BY key
                """
            keysNewerThanMajor = "SELECT key FROM \(s).documents WHERE collection = $1 AND major > $2 ORDER BY key"
            insertDocument = """
                INSERT INTO \(s).documents
                    (collection, key, class_tag, major, minor, revision, created_at, updated_at, body, key_id)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8, $9)
                """
            updateDocument = """
                UPDATE \(s).documents SET class_tag = $3, major = $4, minor = $5, revision = $6, updated_at = $7,
                    body = $8, key_id = $9
                WHERE collection = $1 AND key = $2
                """
            deleteDocument = "DELETE FROM \(s).documents WHERE collection = $1 AND key = $2"
            currentRowAndLastRevision = """
                SELECT d.revision, d.major, d.minor, d.class_tag, d.key_id, \(HistoryStatements.lastRevisionExpression(s))
                FROM (SELECT 1) AS one LEFT JOIN \(s).documents AS d ON d.collection = $1 AND d.key = $2
                """
            let setLastRevision = "WITH last_revision AS (\(HistoryStatements.setLastRevision(s, revision: "$6"))) "
            insertDocumentSettingLastRevision = setLastRevision + insertDocument
            updateDocumentSettingLastRevision = setLastRevision + updateDocument
        }
    }

    /// Statements on `history` and `key_revisions`.
    package struct HistoryStatements: Sendable {
        /// revision, major, minor, class_tag, saved at, is current (0 or 1) of every kept revision, oldest first.
        package let revisions: String
        /// Document columns of revision $3, from history or current.
        package let documentRevision: String
        package let copyCurrentToHistory: String
        package let deleteHistory: String
        /// Keeps the newest $3 revisions in history.
        package let pruneHistory: String
        /// The last revision the key ever had (NULL for a key never saved).
        package let lastRevision: String
        /// Records $3 as the key's last revision.
        package let setLastRevision: String
        /// collection, key, then document columns, of at most $5 documents after ($1, $2) whose key id is not $4
        /// ($3 unused), in key order.
        package let documentsNotSealedWith: String
        /// The same of kept revisions, after ($1, $2, $3).
        package let revisionsNotSealedWith: String
        /// Replaces the body of document ($1, $2) at revision $3 with $5 sealed with key $6, if its key id is
        /// still $4.
        package let replaceDocumentBody: String
        /// The same for a kept revision.
        package let replaceRevisionBody: String

        init(_ s: String) {
            documentsNotSealedWith = """
                SELECT collection, key, \(DocumentStatements.columns) FROM \(s).documents
                WHERE (collection, key) > ($1, $2) AND $3::bigint IS NOT NULL AND key_id IS DISTINCT FROM $4
                ORDER BY collection, key LIMIT $5::bigint
                """
            revisionsNotSealedWith = """
                SELECT collection, key, revision, major, minor, class_tag, saved_at, saved_at, body, key_id
                FROM \(s).history
                WHERE (collection, key, revision) > ($1, $2, $3::bigint) AND key_id IS DISTINCT FROM $4
                ORDER BY collection, key, revision LIMIT $5::bigint
                """
            replaceDocumentBody = """
                UPDATE \(s).documents SET body = $5, key_id = $6
                WHERE collection = $1 AND key = $2 AND revision = $3 AND key_id IS NOT DISTINCT FROM $4
                RETURNING 1
                """
            replaceRevisionBody = """
                UPDATE \(s).history SET body = $5, key_id = $6
                WHERE collection = $1 AND key = $2 AND revision = $3 AND key_id IS NOT DISTINCT FROM $4
                RETURNING 1
                """
            revisions = """
                SELECT revision, major, minor, class_tag, saved_at, 0 FROM \(s).history
                    WHERE collection = $1 AND key = $2
                UNION ALL
                SELECT revision, major, minor, class_tag, updated_at, 1 FROM \(s).documents
                    WHERE collection = $1 AND key = $2
                ORDER BY 1
                """
            documentRevision = """
                SELECT revision, major, minor, class_tag, saved_at, saved_at, body, key_id FROM \(s).history
                    WHERE collection = $1 AND key = $2 AND revision = $3
                UNION ALL
                SELECT \(DocumentStatements.columns) FROM \(s).documents
                    WHERE collection = $1 AND key = $2 AND revision = $3
                """
            copyCurrentToHistory = """
                INSERT INTO \(s).history
                    (collection, key, revision, class_tag, major, minor, saved_at, body, key_id)
                SELECT collection, key, revision, class_tag, major, minor, updated_at, body, key_id
                FROM \(s).documents WHERE collection = $1 AND key = $2
                ON CONFLICT (collection, key, revision) DO UPDATE SET class_tag = excluded.class_tag,
                    major = excluded.major, minor = excluded.minor, saved_at = excluded.saved_at, body = excluded.body,
                    key_id = excluded.key_id
                """
            deleteHistory = "DELETE FROM \(s).history WHERE collection = $1 AND key = $2"
            pruneHistory = """
                DELETE FROM \(s).history WHERE collection = $1 AND key = $2 AND revision NOT IN
                    (SELECT revision FROM \(s).history WHERE collection = $1 AND key = $2
                     ORDER BY revision DESC LIMIT $3::bigint)
                """
            lastRevision = Self.lastRevision(s)
            setLastRevision = Self.setLastRevision(s, revision: "$3")
        }

        static func lastRevision(_ s: String) -> String {
            "SELECT " + lastRevisionExpression(s)
        }

        /// The larger of the key's recorded last revision and its newest revision in history (NULL when neither
        /// is there): `GREATEST` ignores NULLs. Cheaper to plan than `max` over a `UNION ALL`, on every save.
        static func lastRevisionExpression(_ s: String) -> String {
            """
            GREATEST(
                (SELECT revision FROM \(s).key_revisions WHERE collection = $1 AND key = $2),
                (SELECT max(revision) FROM \(s).history WHERE collection = $1 AND key = $2))
            """
        }

        static func setLastRevision(_ s: String, revision: String) -> String {
            """
            INSERT INTO \(s).key_revisions (collection, key, revision) VALUES ($1, $2, \(revision))
            ON CONFLICT (collection, key) DO UPDATE SET revision = excluded.revision
            """
        }
    }

    /// Statements on `index_entries` and `index_catalog`.
    package struct IndexStatements: Sendable {
        /// The keys whose index $2 holds the value $3.
        package let keysWithIndexValue: String
        /// One row: whether index $2 is built (``indexIsBuilt``), and the keys whose index $2 holds the value $3
        /// (``keysWithIndexValue``, as an array): an equality query in one round trip.
        package let indexIsBuiltAndKeysWithIndexValue: String
        /// The keys in index $2; range queries append `AND value >= $n` / `AND value < $n` and `ORDER BY key`.
        package let keysInIndex: String
        /// A key other than $4 whose index $2 holds $3.
        package let otherKeyWithIndexValue: String
        /// Index $2 holds value $3 for key $4.
        package let insertIndexEntry: String
        package let deleteIndexEntriesOfKey: String
        package let deleteIndexEntriesOfIndex: String
        package let indexIsBuilt: String
        package let builtIndexNames: String
        /// name, fingerprint of the indexes built for a collection.
        package let builtIndexes: String
        /// Index $2 is built from the definition whose fingerprint is $3.
        package let recordBuiltIndex: String
        package let forgetIndex: String

        init(_ s: String) {
            keysWithIndexValue = """
                SELECT DISTINCT key FROM \(s).index_entries WHERE collection = $1 AND name = $2 AND value = $3
                ORDER BY key
                """
            indexIsBuiltAndKeysWithIndexValue = """
                SELECT EXISTS (SELECT 1 FROM \(s).index_catalog WHERE collection = $1 AND name = $2),
                    ARRAY(\(keysWithIndexValue))
                """
            keysInIndex = "SELECT DISTINCT key FROM \(s).index_entries WHERE collection = $1 AND name = $2"
            otherKeyWithIndexValue = """
                SELECT key FROM \(s).index_entries
                WHERE collection = $1 AND name = $2 AND value = $3 AND key <> $4 LIMIT 1
                """
            insertIndexEntry = """
                INSERT INTO \(s).index_entries (collection, name, value, key) VALUES ($1, $2, $3, $4)
                ON CONFLICT DO NOTHING
                """
            deleteIndexEntriesOfKey = "DELETE FROM \(s).index_entries WHERE collection = $1 AND key = $2"
            deleteIndexEntriesOfIndex = "DELETE FROM \(s).index_entries WHERE collection = $1 AND name = $2"
            indexIsBuilt = "SELECT 1 FROM \(s).index_catalog WHERE collection = $1 AND name = $2"
            builtIndexNames = "SELECT name FROM \(s).index_catalog WHERE collection = $1"
            builtIndexes = "SELECT name, fingerprint FROM \(s).index_catalog WHERE collection = $1"
            recordBuiltIndex = """
                INSERT INTO \(s).index_catalog (collection, name, fingerprint) VALUES ($1, $2, $3)
                ON CONFLICT (collection, name) DO UPDATE SET fingerprint = excluded.fingerprint
                """
            forgetIndex = "DELETE FROM \(s).index_catalog WHERE collection = $1 AND name = $2"
        }
    }
}
