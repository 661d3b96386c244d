/// The store's own SQL schema, versioned with `PRAGMA user_version`. Each step is frozen once released;
/// a new one is appended and runs in the same transaction as the others on open.
enum StoreSchema {
    /// The schema version this code writes.
    static var currentVersion: Int64 { Int64(steps.count) }

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
    ]

    /// Checks that a file store's journal is the write-ahead log `Store` asked for: `PRAGMA journal_mode = WAL`
    /// answers with the mode it could set, and a file system without the shared memory WAL needs (some
    /// network file systems) leaves the old one. The store is then not opened: its readers would block its
    /// writer and fail with busy errors, which is not what it promises.
    static func requireWriteAheadLog(_ connection: SQLiteConnection, path: String) throws(StoreError) {
        let mode: String?
        do {
            mode = try connection.text("PRAGMA journal_mode")
        } catch {
            throw StoreError(error)
        }
        guard mode?.lowercased() == "wal" else {
            throw StoreError(
                .unsupportedFileSystem,
                "Cannot open the store at \(path): its file system does not support a write-ahead log "
                    + "(the journal mode stayed \(mode ?? "unknown")); put the store on a local file system")
        }
    }

    /// Brings `connection`'s schema up to date in one transaction; refuses a store from a newer Hangar.
    static func migrate(_ connection: SQLiteConnection, path: String) throws(StoreError) {
        let version: Int64
        do {
            version = try connection.integer("PRAGMA user_version") ?? 0
        } catch {
            throw StoreError(error)
        }
        guard version <= currentVersion else {
            throw StoreError(
                .newerSchema,
                "\(path) has store schema version \(version); this Hangar reads up to \(currentVersion). "
                    + "It was not opened or changed")
        }
        guard version < currentVersion else { return }
        do {
            try connection.transaction(immediate: true) { () throws(SQLiteError) in
                // Re-read under the write lock: another process may have migrated it meanwhile.
                let locked = try connection.integer("PRAGMA user_version") ?? 0
                guard locked < currentVersion else { return }
                for step in steps[Int(locked)...] { try connection.execute(step) }
                try connection.execute("PRAGMA user_version = \(currentVersion)")
            }
        } catch {
            switch error {
            case .sqlite(let failure), .body(let failure): throw StoreError(failure)
            }
        }
    }
}
