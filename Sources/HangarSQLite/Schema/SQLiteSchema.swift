import Hangar

/// The store's own SQL schema, versioned with `PRAGMA user_version`. Each step is frozen once released;
/// a new one is appended and runs in the same transaction as the others on open.
///
/// The tables (as of the last step):
///
/// - `documents`: the current revision of every document, by (collection, key): its class tag, version,
///   revision, timestamps and envelope as a binary property list (`body`).
///   `key_id`: the id of the key that sealed the body (NULL: plaintext; see ``DocumentEncryption``).
/// - `history`: earlier revisions, by (collection, key, revision), as the collection's policy keeps them, each
///   with its `key_id`.
/// - `key_revisions`: the last revision of each deleted key (a stored document's own revision is its key's largest;
///   before step 4 every save wrote it too), so that revisions are never reused.
/// - `index_entries`: one row per (collection, index name, value, key); `value` is an ``IndexValue`` BLOB.
/// - `index_catalog`: the indexes built, by (collection, name), with the fingerprint of their definition.
/// - `mirror_failures`: mirror files a mirror pass could not write, by (collection, key), to retry.
/// - `mirror_cursors`: per mirror (collection, directory), the last sequence of the feed it has mirrored.
/// - `changes`: the change feed, one row per committed save, delete or restore, by store-wide `sequence`;
///   the last sequence given is the largest here (or `pruned_through` when all were pruned).
/// - `change_counter`: one row: the last sequence pruned (its `last_sequence` and `last_transaction`
///   are no longer written since step 4: a transaction's id is the sequence of its first change).
///
/// Every statement the store runs on them is in ``SQLiteSQL``.
package enum SQLiteSchema {
    /// The schema version this code writes.
    package static var currentVersion: Int64 { Int64(steps.count) }

    /// Step `n` upgrades a store from version `n` to `n + 1`.
    static let steps: [String] = [
        """
        CREATE TABLE documents (
            collection TEXT NOT NULL,
            key TEXT NOT NULL,
            class_tag TEXT,
            major INTEGER NOT NULL,
            minor INTEGER NOT NULL,
            revision INTEGER NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            body BLOB NOT NULL,
            PRIMARY KEY (collection, key)
        ) STRICT;
        CREATE INDEX documents_by_class_tag ON documents (collection, class_tag);
        CREATE TABLE history (
            collection TEXT NOT NULL,
            key TEXT NOT NULL,
            revision INTEGER NOT NULL,
            class_tag TEXT,
            major INTEGER NOT NULL,
            minor INTEGER NOT NULL,
            saved_at REAL NOT NULL,
            body BLOB NOT NULL,
            PRIMARY KEY (collection, key, revision)
        ) STRICT;
        CREATE TABLE index_entries (
            collection TEXT NOT NULL,
            name TEXT NOT NULL,
            value ANY,
            key TEXT NOT NULL,
            PRIMARY KEY (collection, name, value, key)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX index_entries_by_key ON index_entries (collection, key);
        """,
        // 2: the last revision each key ever had (kept across deletes and history pruning, so a revision is
        // never reused); the indexes built and from which definition; mirror files not yet written. Index
        // values become order-preserving BLOBs (``IndexValue``): the old entries are dropped and rebuilt on open.
        """
        CREATE TABLE key_revisions (
            collection TEXT NOT NULL,
            key TEXT NOT NULL,
            revision INTEGER NOT NULL,
            PRIMARY KEY (collection, key)
        ) STRICT, WITHOUT ROWID;
        INSERT INTO key_revisions (collection, key, revision)
            SELECT collection, key, max(revision) FROM (
                SELECT collection, key, revision FROM documents
                UNION ALL SELECT collection, key, revision FROM history
            ) GROUP BY collection, key;
        CREATE TABLE index_catalog (
            collection TEXT NOT NULL,
            name TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            PRIMARY KEY (collection, name)
        ) STRICT, WITHOUT ROWID;
        DELETE FROM index_entries;
        CREATE TABLE mirror_failures (
            collection TEXT NOT NULL,
            key TEXT NOT NULL,
            directory TEXT NOT NULL,
            reason TEXT NOT NULL,
            failed_at REAL NOT NULL,
            PRIMARY KEY (collection, key)
        ) STRICT, WITHOUT ROWID;
        """,
        // 3: the change feed. Sequences come from `change_counter`, updated in the writing transaction: a
        // rollback takes its numbers back, so they have no gaps. A store upgraded from step 2 starts its feed
        // empty, at sequence 1.
        """
        CREATE TABLE changes (
            sequence INTEGER PRIMARY KEY,
            transaction_id INTEGER NOT NULL,
            collection TEXT NOT NULL,
            key TEXT NOT NULL,
            revision INTEGER NOT NULL,
            kind TEXT NOT NULL,
            major INTEGER NOT NULL,
            minor INTEGER NOT NULL,
            class_tag TEXT,
            committed_at REAL NOT NULL
        ) STRICT;
        CREATE INDEX changes_by_collection ON changes (collection, sequence);
        CREATE TABLE change_counter (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            last_sequence INTEGER NOT NULL,
            last_transaction INTEGER NOT NULL,
            pruned_through INTEGER NOT NULL
        ) STRICT;
        INSERT INTO change_counter (id, last_sequence, last_transaction, pruned_through) VALUES (1, 0, 0, 0);
        """,
        // 4: mirrors follow the feed, each from a cursor kept here (the last sequence whose files it wrote, or
        // owes in `mirror_failures`); a mirror without a cursor (every mirror of a store upgraded from step 3)
        // writes its whole collection once. The counter stops being written on every commit: the last
        // sequence is the largest in `changes` (the writer holds the lock, so it stays gap-free); the one
        // before is kept in `pruned_through` for a feed pruned empty. The feed's index by collection goes:
        // every commit wrote a page of it, and reading one collection's changes from a recent sequence (what
        // followers and mirrors do) scans only the changes after it.
        """
        DROP INDEX changes_by_collection;
        CREATE TABLE mirror_cursors (
            collection TEXT NOT NULL,
            directory TEXT NOT NULL,
            sequence INTEGER NOT NULL,
            PRIMARY KEY (collection, directory)
        ) STRICT, WITHOUT ROWID;
        UPDATE change_counter SET pruned_through = max(pruned_through, last_sequence)
            WHERE NOT EXISTS (SELECT 1 FROM changes WHERE sequence > pruned_through);
        """,
        // 5: encryption at rest. Each body's key id (NULL: plaintext, as every body stored before this step).
        """
        ALTER TABLE documents ADD COLUMN key_id TEXT;
        ALTER TABLE history ADD COLUMN key_id TEXT;
        """,
    ]

    /// Checks that a file store's journal is the write-ahead log `SQLiteStore` asked for: SQLite stays in another mode
    /// when the database cannot use one (a file system without the shared memory WAL needs, as some network
    /// file systems; a temporary database for an empty path; an in-memory one named by a URI). The store is
    /// then not opened: its readers would block its writer, or read a database of their own.
    static func requireWriteAheadLog(_ connection: SQLiteConnection, path: String) throws(HangarError) {
        let mode: String?
        do {
            mode = try connection.text("PRAGMA journal_mode")
        } catch {
            throw HangarError(error)
        }
        guard mode?.lowercased() == "wal" else {
            throw HangarError(
                .unsupportedFileSystem,
                "Cannot open the store at \(path): it cannot use a write-ahead log (SQLite's journal mode is "
                    + "\(mode ?? "unknown"), not wal); open a file on a local file system, or use SQLiteStore.inMemory()"
            )
        }
    }

    /// The schema version of the file on `connection` (0: a new file); a newer one than this Hangar knows is
    /// ``HangarError/newerSchema``, and the file is left as it is.
    private static func readableVersion(_ connection: SQLiteConnection, path: String) throws(HangarError) -> Int64 {
        let version: Int64
        do {
            version = try connection.integer("PRAGMA user_version") ?? 0
        } catch {
            throw HangarError(error)
        }
        guard version <= currentVersion else {
            throw HangarError(
                .newerSchema,
                "\(path) has store schema version \(version); this Hangar reads up to \(currentVersion). "
                    + "It was not opened or changed")
        }
        return version
    }

    /// Refuses, for a store opened read-only, a schema other than the current one: a newer one
    /// (``HangarError/newerSchema``), or an older one, which only opening it for writing upgrades
    /// (``HangarError/readOnly``).
    static func requireCurrent(_ connection: SQLiteConnection, path: String) throws(HangarError) {
        let version = try readableVersion(connection, path: path)
        guard version == currentVersion else {
            throw HangarError(
                .readOnly,
                "\(path) has store schema version \(version), older than \(currentVersion): open it for writing "
                    + "once to upgrade it; a read-only store is not changed")
        }
    }

    /// Brings `connection`'s schema up to date in one transaction; refuses a store from a newer Hangar.
    @discardableResult
    static func migrate(_ connection: SQLiteConnection, path: String) throws(HangarError) -> Int64? {
        let version = try readableVersion(connection, path: path)
        guard version < currentVersion else { return nil }
        do {
            return try connection.transaction(immediate: true) { () throws(SQLiteError) -> Int64? in
                // Re-read under the write lock: another process may have migrated it meanwhile.
                let locked = try connection.integer("PRAGMA user_version") ?? 0
                guard locked < currentVersion else { return nil }
                for step in steps[Int(locked)...] { try connection.execute(step) }
                try connection.execute("PRAGMA user_version = \(currentVersion)")
                return locked
            }
        } catch {
            switch error {
            case .sqlite(let failure), .body(let failure): throw HangarError(failure)
            }
        }
    }
}

/// Every statement the store runs on its tables (``SQLiteSchema``), in one place. Parameters are numbered
/// (`?1` is always the collection); the column lists say where each value is read from.
enum SQLiteSQL {
    // MARK: documents

    /// The columns ``SQLiteReadTransaction/storedDocument(_:collection:key:firstColumn:)`` reads, in order.
    static let documentColumns = "revision, major, minor, class_tag, created_at, updated_at, body, key_id"
    /// ``documentColumns`` of one document (?1 collection, ?2 key).
    static let document = "SELECT \(documentColumns) FROM documents WHERE collection = ?1 AND key = ?2"
    /// `1` when the document exists.
    static let documentExists = "SELECT 1 FROM documents WHERE collection = ?1 AND key = ?2"
    /// revision, major, minor, class_tag, key_id of the current document (what a write needs of it).
    static let currentRow =
        "SELECT revision, major, minor, class_tag, key_id FROM documents WHERE collection = ?1 AND key = ?2"
    /// The collections that hold documents.
    static let collections = "SELECT DISTINCT collection FROM documents ORDER BY collection"
    /// How many documents a collection holds.
    static let countDocuments = "SELECT count(*) FROM documents WHERE collection = ?1"
    /// Every key of a collection, in order.
    static let keys = "SELECT key FROM documents WHERE collection = ?1 ORDER BY key"
    /// A page of keys (?2 limit, -1 for none; ?3 offset), ascending, descending, or most recently saved first.
    static let keysPageAscending = "SELECT key FROM documents WHERE collection = ?1 ORDER BY key ASC LIMIT ?2 OFFSET ?3"
    static let keysPageDescending =
        "SELECT key FROM documents WHERE collection = ?1 ORDER BY key DESC LIMIT ?2 OFFSET ?3"
    static let keysPageRecentlyUpdated =
        "SELECT key FROM documents WHERE collection = ?1 ORDER BY updated_at DESC, key ASC LIMIT ?2 OFFSET ?3"
    /// The keys whose class tag is ?2.
    static let keysByClassTag = "SELECT key FROM documents WHERE collection = ?1 AND class_tag = ?2 ORDER BY key"
    /// key, then ``documentColumns``, of every document of a collection.
    static let documentsOfCollection =
        "SELECT key, \(documentColumns) FROM documents WHERE collection = ?1 ORDER BY key"
    /// The keys of documents older than version ?2.?3.
    static let keysOlderThanVersion =
        "SELECT key FROM documents WHERE collection = ?1 AND (major < ?2 OR (major = ?2 AND minor < ?3)) ORDER BY key"
    /// The keys of documents of a major newer than ?2.
    static let keysNewerThanMajor = "SELECT key FROM documents WHERE collection = ?1 AND major > ?2 ORDER BY key"
    /// A new document: ?3 class tag, ?4 major, ?5 minor, ?6 revision, ?7 now (created and updated), ?8 body,
    /// ?9 key id.
    static let insertDocument = """
        INSERT INTO documents
            (collection, key, class_tag, major, minor, revision, created_at, updated_at, body, key_id)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8, ?9)
        """
    /// A new revision of a document: parameters as ``insertDocument`` (?7 is the update time).
    static let updateDocument = """
        UPDATE documents SET class_tag = ?3, major = ?4, minor = ?5, revision = ?6, updated_at = ?7, body = ?8,
            key_id = ?9
        WHERE collection = ?1 AND key = ?2
        """
    static let deleteDocument = "DELETE FROM documents WHERE collection = ?1 AND key = ?2"

    // MARK: Encryption at rest

    /// collection, key, then ``documentColumns``, of at most ?5 documents after (?1, ?2) whose key id is not ?4
    /// (?3 unused), in key order.
    static let documentsNotSealedWith = """
        SELECT collection, key, \(documentColumns) FROM documents
        WHERE (collection, key) > (?1, ?2) AND key_id IS NOT ?4 ORDER BY collection, key LIMIT ?5
        """
    /// The same of kept revisions, after (?1, ?2, ?3).
    static let revisionsNotSealedWith = """
        SELECT collection, key, revision, major, minor, class_tag, saved_at, saved_at, body, key_id FROM history
        WHERE (collection, key, revision) > (?1, ?2, ?3) AND key_id IS NOT ?4
        ORDER BY collection, key, revision LIMIT ?5
        """
    /// Replaces the body of document (?1, ?2) at revision ?3 with ?5 sealed with key ?6, if its key id is still ?4.
    static let replaceDocumentBody = """
        UPDATE documents SET body = ?5, key_id = ?6
        WHERE collection = ?1 AND key = ?2 AND revision = ?3 AND key_id IS ?4
        """
    /// The same for a kept revision.
    static let replaceRevisionBody = """
        UPDATE history SET body = ?5, key_id = ?6
        WHERE collection = ?1 AND key = ?2 AND revision = ?3 AND key_id IS ?4
        """

    // MARK: history and key_revisions

    /// revision, major, minor, class_tag, saved at, is current (0 or 1) of every kept revision, oldest first.
    static let revisions = """
        SELECT revision, major, minor, class_tag, saved_at, 0 FROM history WHERE collection = ?1 AND key = ?2
        UNION ALL
        SELECT revision, major, minor, class_tag, updated_at, 1 FROM documents WHERE collection = ?1 AND key = ?2
        ORDER BY 1
        """
    /// ``documentColumns`` of revision ?3, from history or current (history's saved_at stands for both times).
    static let documentRevision = """
        SELECT revision, major, minor, class_tag, saved_at, saved_at, body, key_id FROM history
            WHERE collection = ?1 AND key = ?2 AND revision = ?3
        UNION ALL
        SELECT \(documentColumns) FROM documents WHERE collection = ?1 AND key = ?2 AND revision = ?3
        """
    static let copyCurrentToHistory = """
        INSERT OR REPLACE INTO history (collection, key, revision, class_tag, major, minor, saved_at, body, key_id)
        SELECT collection, key, revision, class_tag, major, minor, updated_at, body, key_id FROM documents
        WHERE collection = ?1 AND key = ?2
        """
    static let deleteHistory = "DELETE FROM history WHERE collection = ?1 AND key = ?2"
    /// Keeps the newest ?3 revisions in history.
    static let pruneHistory = """
        DELETE FROM history WHERE collection = ?1 AND key = ?2 AND revision NOT IN
            (SELECT revision FROM history WHERE collection = ?1 AND key = ?2 ORDER BY revision DESC LIMIT ?3)
        """
    /// The last revision the key ever had (NULL for a key never saved).
    static let lastRevision = """
        SELECT max(revision) FROM (
            SELECT revision FROM key_revisions WHERE collection = ?1 AND key = ?2
            UNION ALL SELECT max(revision) FROM history WHERE collection = ?1 AND key = ?2)
        """
    /// Records ?3 as the key's last revision.
    static let setLastRevision = """
        INSERT INTO key_revisions (collection, key, revision) VALUES (?1, ?2, ?3)
        ON CONFLICT (collection, key) DO UPDATE SET revision = excluded.revision
        """

    // MARK: index_entries and index_catalog

    /// The keys whose index ?2 holds the value ?3.
    static let keysWithIndexValue =
        "SELECT DISTINCT key FROM index_entries WHERE collection = ?1 AND name = ?2 AND value = ?3 ORDER BY key"
    /// The keys in index ?2; range queries append `AND value >= ?n` / `AND value <= ?n` and `ORDER BY key`.
    static let keysInIndex = "SELECT DISTINCT key FROM index_entries WHERE collection = ?1 AND name = ?2"
    /// A key other than ?4 whose index ?2 holds ?3.
    static let otherKeyWithIndexValue =
        "SELECT key FROM index_entries WHERE collection = ?1 AND name = ?2 AND value = ?3 AND key != ?4 LIMIT 1"
    /// Index ?2 holds value ?3 for key ?4.
    static let insertIndexEntry =
        "INSERT OR IGNORE INTO index_entries (collection, name, value, key) VALUES (?1, ?2, ?3, ?4)"
    static let deleteIndexEntriesOfKey = "DELETE FROM index_entries WHERE collection = ?1 AND key = ?2"
    static let deleteIndexEntriesOfIndex = "DELETE FROM index_entries WHERE collection = ?1 AND name = ?2"
    static let indexIsBuilt = "SELECT 1 FROM index_catalog WHERE collection = ?1 AND name = ?2"
    static let builtIndexNames = "SELECT name FROM index_catalog WHERE collection = ?1"
    /// name, fingerprint of the indexes built for a collection.
    static let builtIndexes = "SELECT name, fingerprint FROM index_catalog WHERE collection = ?1"
    /// Index ?2 is built from the definition whose fingerprint is ?3.
    static let recordBuiltIndex =
        "INSERT OR REPLACE INTO index_catalog (collection, name, fingerprint) VALUES (?1, ?2, ?3)"
    static let forgetIndex = "DELETE FROM index_catalog WHERE collection = ?1 AND name = ?2"

    // MARK: changes and change_counter

    /// The last sequence given (the largest kept, or the last pruned when none is kept), the last pruned.
    static let changeCounter = """
        SELECT max(coalesce((SELECT max(sequence) FROM changes), 0), pruned_through), pruned_through
        FROM change_counter WHERE id = 1
        """
    /// Sets ?1 the last sequence pruned.
    static let setPrunedThrough = "UPDATE change_counter SET pruned_through = ?1 WHERE id = 1"
    /// Records change ?1 of transaction ?2, of kind ?3, at ?4: (?5 collection, ?6 key) at revision ?7, version
    /// ?8.?9, class tag ?10.
    static let recordChange = """
        INSERT INTO changes
            (sequence, transaction_id, collection, key, revision, kind, major, minor, class_tag, committed_at)
        VALUES (?1, ?2, ?5, ?6, ?7, ?3, ?8, ?9, ?10, ?4)
        """
    /// The columns ``SQLiteReadTransaction/changes(since:in:limit:)`` reads, in order.
    static let changeColumns =
        "sequence, transaction_id, collection, key, revision, kind, major, minor, class_tag, committed_at"
    /// Changes after ?1, oldest first, at most ?2 (-1: all).
    static let changesSince = "SELECT \(changeColumns) FROM changes WHERE sequence > ?1 ORDER BY sequence LIMIT ?2"
    /// Changes of collection ?3 after ?1, oldest first, at most ?2 (-1: all).
    static let changesOfCollectionSince =
        "SELECT \(changeColumns) FROM changes WHERE collection = ?3 AND sequence > ?1 ORDER BY sequence LIMIT ?2"
    /// Drops the changes up to ?1.
    static let pruneChanges = "DELETE FROM changes WHERE sequence <= ?1"
    /// sequence, committed_at of the first change after ?1 committed at ?2 or later.
    static let firstChangeNotOlderThan =
        "SELECT sequence, committed_at FROM changes WHERE sequence > ?1 AND committed_at >= ?2 ORDER BY sequence LIMIT 1"

    // MARK: mirror_cursors

    /// The last sequence the mirror of collection ?1 in directory ?2 has mirrored.
    static let mirrorCursor = "SELECT sequence FROM mirror_cursors WHERE collection = ?1 AND directory = ?2"
    /// Sets the mirror's cursor to ?3.
    static let setMirrorCursor =
        "INSERT OR REPLACE INTO mirror_cursors (collection, directory, sequence) VALUES (?1, ?2, ?3)"
    /// collection, directory, sequence of every mirror cursor.
    static let mirrorCursors = "SELECT collection, directory, sequence FROM mirror_cursors ORDER BY 1, 2"

    // MARK: mirror_failures

    /// The keys of collection ?1 whose files in directory ?2 are owed.
    static let mirrorFailuresToRetry =
        "SELECT key FROM mirror_failures WHERE collection = ?1 AND directory = ?2 ORDER BY key"
    /// collection, key, directory, reason, failed_at of every mirror file owed.
    static let mirrorFailures =
        "SELECT collection, key, directory, reason, failed_at FROM mirror_failures ORDER BY 1, 2"
    /// ?3 directory, ?4 reason, ?5 when.
    static let recordMirrorFailure = """
        INSERT OR REPLACE INTO mirror_failures (collection, key, directory, reason, failed_at)
        VALUES (?1, ?2, ?3, ?4, ?5)
        """
    /// Clears the failure of the key ?2 in directory ?3.
    static let clearMirrorFailure =
        "DELETE FROM mirror_failures WHERE collection = ?1 AND key = ?2 AND directory = ?3"
}
