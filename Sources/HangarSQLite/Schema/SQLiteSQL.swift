import Hangar

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
    /// The keys whose class tag is ?2, through the class-tag index (`+key`: sorted after, so that the planner does not
    /// walk the whole collection in key order instead).
    static let keysByClassTag = "SELECT key FROM documents WHERE collection = ?1 AND class_tag = ?2 ORDER BY +key"
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
