import Hangar

/// The store's own SQL schema, versioned with `PRAGMA user_version`. Each step is frozen once released;
/// a new one is appended and runs in the same transaction as the others on open.
///
/// The tables (as of the last step):
///
/// - `documents`: the current revision of every document, by (collection, key): its class tag, version,
///   revision, timestamps and envelope as a binary property list (`body`); indexed by class tag where it has one.
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
        // 6: the class-tag index holds only documents that have a class tag. A collection of one model (no tag)
        // writes no page of it on a save, and with `synchronous = FULL` one page less is flushed per commit; a query
        // by tag (`class_tag = ?`) still uses it.
        """
        DROP INDEX documents_by_class_tag;
        CREATE INDEX documents_by_class_tag ON documents (collection, class_tag) WHERE class_tag IS NOT NULL;
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
