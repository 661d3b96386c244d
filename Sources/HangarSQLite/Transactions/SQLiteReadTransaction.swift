import Foundation
import Hangar
public import PropertyList

/// What a `read` closure is handed: consistent reads of the store as of the transaction's start.
/// Use it only inside the closure.
public class SQLiteReadTransaction {
    let connection: SQLiteConnection
    let store: SQLiteStore
    private var isValid = true

    init(connection: SQLiteConnection, store: SQLiteStore) {
        self.connection = connection
        self.store = store
    }

    func invalidate() {
        isValid = false
    }

    func checkValid() {
        precondition(isValid, "Hangar: a transaction was used after its read or write closure returned")
    }

    // MARK: Single documents

    /// The document at `key` in `collection` as stored, or `nil`.
    public func document(in collection: String, key: String) throws(HangarError) -> StoredDocument? {
        checkValid()
        return try query(
            SQLiteSQL.document,
            [.text(collection), .text(key)], collection: collection, key: key
        ) { statement in
            self.storedDocument(statement, collection: collection, key: key)
        }.first
    }

    /// Whether a document is stored at `key` in `collection`.
    public func exists(in collection: String, key: String) throws(HangarError) -> Bool {
        checkValid()
        return try !query(
            SQLiteSQL.documentExists, [.text(collection), .text(key)],
            collection: collection, key: key
        ) { _ in () }.isEmpty
    }

    /// The document at `key` read as a `Document`, migrated in memory when it is older; `nil` when there is none.
    ///
    /// A document that cannot be read (corrupt bytes, unknown class tag, newer major) throws and is left as it is.
    public func load<Document: VersionedDocument>(
        _ type: Document.Type, key: String, in collection: String = Document.collection
    ) throws(HangarError) -> Loaded<Document>? {
        guard let stored = try document(in: collection, key: key) else { return nil }
        return try decode(stored, as: type)
    }

    /// An earlier revision of a document, read as a `Document` (migrated in memory when older).
    public func load<Document: VersionedDocument>(
        _ type: Document.Type, key: String, revision: Int, in collection: String = Document.collection
    ) throws(HangarError) -> Loaded<Document>? {
        guard let stored = try document(in: collection, key: key, revision: revision) else { return nil }
        return try decode(stored, as: type)
    }

    /// Decodes a stored document as a `Document`.
    func decode<Document: VersionedDocument>(_ stored: StoredDocument, as type: Document.Type) throws(HangarError)
        -> Loaded<Document>
    {
        try DocumentRules.decode(stored, as: type, configuration: store.configuration)
    }

    // MARK: Collections

    /// The names of the collections that hold documents, sorted.
    public func collections() throws(HangarError) -> [String] {
        checkValid()
        return try query(SQLiteSQL.collections, []) { $0.text(at: 0) }
    }

    /// How many documents `collection` holds.
    public func count(in collection: String) throws(HangarError) -> Int {
        checkValid()
        return try query(SQLiteSQL.countDocuments, [.text(collection)]) {
            Int($0.int64(at: 0))
        }.first ?? 0
    }

    /// The keys of `collection`, in `order`, at most `limit` of them after skipping `offset`.
    public func keys(
        in collection: String, order: KeyOrdering = .ascending, limit: Int? = nil, offset: Int = 0
    ) throws(HangarError) -> [String] {
        checkValid()
        let sql =
            switch order {
            case .ascending: SQLiteSQL.keysPageAscending
            case .descending: SQLiteSQL.keysPageDescending
            case .recentlyUpdated: SQLiteSQL.keysPageRecentlyUpdated
            }
        return try query(
            sql,
            [.text(collection), .integer(Int64(limit ?? -1)), .integer(Int64(offset))], collection: collection
        ) { $0.text(at: 0) }
    }

    /// The keys of the documents of `collection` whose content is tagged `classTag`, sorted.
    public func keys(in collection: String, classTag: String) throws(HangarError) -> [String] {
        checkValid()
        return try query(
            SQLiteSQL.keysByClassTag,
            [.text(collection), .text(classTag)], collection: collection
        ) { $0.text(at: 0) }
    }

    /// The keys of the documents of `collection` whose index `index` holds `value`, sorted.
    ///
    /// Values compare exactly, in one order across types: Booleans (`false`, `true`), then numbers (integers
    /// and reals together, by numeric value: `3` equals `3.0`, `-0.0` equals `0.0`, −∞ first and +∞ last),
    /// then dates, then strings (by Unicode scalars, NUL included), then data (by bytes). NaN is never
    /// indexed or found. An index the store has not built (not declared in the configuration it was
    /// opened with) is ``HangarError/notFound``.
    public func keys(in collection: String, index: String, equalTo value: PropertyList) throws(HangarError) -> [String]
    {
        checkValid()
        try requireIndex(index, in: collection)
        guard let bound = IndexValue.encoded(value).map(SQLiteValue.blob) else { return [] }
        return try query(
            SQLiteSQL.keysWithIndexValue,
            [.text(collection), .text(index), bound], collection: collection
        ) { $0.text(at: 0) }
    }

    /// The keys of the documents of `collection` whose index `index` holds a value from `lower` to `upper`
    /// (both included), sorted, in the order ``keys(in:index:equalTo:)`` describes. With one bound `nil`, the
    /// range stops at the end of the other bound's type: `from: 2, to: nil` is every number from 2 up, not
    /// the dates and strings after them. A NaN bound finds nothing.
    public func keys(
        in collection: String, index: String, from lower: PropertyList?, to upper: PropertyList?
    ) throws(HangarError) -> [String] {
        checkValid()
        try requireIndex(index, in: collection)
        // The range's bounds are appended as conditions on `value` (see ``SQLiteSQL/keysInIndex``).
        var sql = SQLiteSQL.keysInIndex
        var arguments: [SQLiteValue] = [.text(collection), .text(index)]
        guard let conditions = IndexValue.rangeConditions(from: lower, to: upper) else { return [] }
        for (bound, comparison) in conditions {
            arguments.append(.blob(bound))
            sql += " AND value \(comparison) ?\(arguments.count)"
        }
        return try query(sql + " ORDER BY key", arguments, collection: collection) { $0.text(at: 0) }
    }

    /// Throws ``HangarError/notFound`` unless the store has built `index` for `collection`.
    private func requireIndex(_ index: String, in collection: String) throws(HangarError) {
        let built: [Void] = try query(
            SQLiteSQL.indexIsBuilt, [.text(collection), .text(index)],
            collection: collection
        ) { _ in () }
        guard !built.isEmpty else {
            throw HangarError(
                .notFound, "No index \(index) is built (declare it in the store's configuration)",
                collection: collection)
        }
    }

    /// Every document of `collection` read as a `Document`, in key order; those that cannot be read are
    /// listed in ``DocumentBatch/quarantined`` with why, not skipped.
    public func documents<Document: VersionedDocument>(
        _ type: Document.Type, in collection: String = Document.collection
    ) throws(HangarError) -> DocumentBatch<Document> {
        checkValid()
        return DocumentRules.batch(try documents(in: collection), as: type, configuration: store.configuration)
    }

    /// Every document of `collection` as stored, in key order.
    public func documents(in collection: String) throws(HangarError) -> [StoredDocument] {
        checkValid()
        return try query(
            SQLiteSQL.documentsOfCollection, [.text(collection)], collection: collection
        ) { statement in
            self.storedDocument(statement, collection: collection, key: statement.text(at: 0), firstColumn: 1)
        }
    }

    /// The keys of the documents of `collection` stored at a version older than `version`, sorted.
    public func keys(in collection: String, olderThan version: DocumentVersion) throws(HangarError) -> [String] {
        checkValid()
        return try query(
            SQLiteSQL.keysOlderThanVersion,
            [.text(collection), .integer(Int64(version.major)), .integer(Int64(version.minor))], collection: collection
        ) { $0.text(at: 0) }
    }

    /// The keys of the documents of `collection` stored at a major newer than `major`, sorted.
    public func keys(in collection: String, newerThanMajor major: Int) throws(HangarError) -> [String] {
        checkValid()
        return try query(
            SQLiteSQL.keysNewerThanMajor, [.text(collection), .integer(Int64(major))], collection: collection
        ) { $0.text(at: 0) }
    }

    /// The configuration of the store this transaction belongs to.
    public var configuration: StoreConfiguration { store.configuration }

    // MARK: History

    /// The kept revisions of a document, oldest first, the current one last.
    public func history(in collection: String, key: String) throws(HangarError) -> [RevisionInfo] {
        checkValid()
        return try query(
            SQLiteSQL.revisions, [.text(collection), .text(key)], collection: collection, key: key
        ) { statement in
            RevisionInfo(
                revision: Int(statement.int64(at: 0)),
                version: DocumentVersion(major: Int(statement.int64(at: 1)), minor: Int(statement.int64(at: 2))),
                classTag: statement.optionalText(at: 3),
                savedAt: Date(timeIntervalSince1970: statement.double(at: 4)),
                isCurrent: statement.int64(at: 5) == 1)
        }
    }

    /// One revision of a document as stored, current or kept in history; `nil` when it is not kept.
    public func document(in collection: String, key: String, revision: Int) throws(HangarError) -> StoredDocument? {
        checkValid()
        return try query(
            SQLiteSQL.documentRevision, [.text(collection), .text(key), .integer(Int64(revision))],
            collection: collection, key: key
        ) { statement in
            self.storedDocument(statement, collection: collection, key: key)
        }.first
    }

    // MARK: Plumbing

    /// Runs `sql` with `arguments` and maps each row.
    func query<Row>(
        _ sql: String, _ arguments: [SQLiteValue], collection: String? = nil, key: String? = nil,
        _ row: (SQLiteStatement) -> Row
    ) throws(HangarError) -> [Row] {
        do {
            let statement = try connection.cachedStatement(sql)
            defer { statement.reset() }
            for (index, argument) in arguments.enumerated() { try statement.bind(argument, at: Int32(index + 1)) }
            var rows: [Row] = []
            while try statement.step() { rows.append(row(statement)) }
            return rows
        } catch {
            throw HangarError(error, collection: collection, key: key)
        }
    }

    /// Runs `sql` with `arguments`, for its effect.
    func execute(_ sql: String, _ arguments: [SQLiteValue], collection: String? = nil, key: String? = nil)
        throws(HangarError)
    {
        _ = try query(sql, arguments, collection: collection, key: key) { _ in () }
    }

    /// Reads ``SQLiteSQL/documentColumns`` from `firstColumn` on.
    func storedDocument(_ statement: SQLiteStatement, collection: String, key: String, firstColumn: Int32 = 0)
        -> StoredDocument
    {
        Self.storedDocument(
            statement, collection: collection, key: key, firstColumn: firstColumn,
            encryption: store.configuration.encryption)
    }

    /// The document in `statement`'s row from `firstColumn` on (``SQLiteSQL/documentColumns``), its sealed body
    /// opened with `encryption` when it is read.
    static func storedDocument(
        _ statement: SQLiteStatement, collection: String, key: String, firstColumn: Int32,
        encryption: (any DocumentEncryption)?
    ) -> StoredDocument {
        let c = firstColumn
        return StoredDocument(
            collection: collection, key: key, revision: Int(statement.int64(at: c)),
            version: DocumentVersion(major: Int(statement.int64(at: c + 1)), minor: Int(statement.int64(at: c + 2))),
            classTag: statement.optionalText(at: c + 3),
            createdAt: Date(timeIntervalSince1970: statement.double(at: c + 4)),
            updatedAt: Date(timeIntervalSince1970: statement.double(at: c + 5)),
            body: statement.blob(at: c + 6), keyID: statement.optionalText(at: c + 7), encryption: encryption)
    }
}
