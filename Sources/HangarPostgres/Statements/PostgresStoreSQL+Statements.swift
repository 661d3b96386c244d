/// The statements on each table, grouped as ``PostgresStoreSQL`` holds them.
extension PostgresStoreSQL {
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
        /// The token columns (``ChangeStatements/token``), then ``columns`` of one document ($1 collection, $2 key),
        /// all NULL when there is none: a tokened read in one statement, its token of the snapshot it read.
        package let documentWithToken: String
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
        package let deleteDocument: String

        init(_ s: String) {
            let columns = Self.columns
            document = "SELECT \(columns) FROM \(s).documents WHERE collection = $1 AND key = $2"
            // A function planned once per session (schema step 7): planning the same read as a join took four
            // times longer than running it.
            documentWithToken = "SELECT wal_position, last_sequence, \(columns) FROM \(s).read_document($1, $2)"
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
