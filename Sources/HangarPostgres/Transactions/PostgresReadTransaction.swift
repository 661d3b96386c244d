import Foundation
public import Hangar
import PostgresNIO
public import PropertyList

/// What a ``PostgresStore`` read closure is handed: reads of one snapshot of the store. Use it only inside the
/// closure.
public class PostgresReadTransaction: DocumentReader {
    let transaction: PostgresTransaction
    let store: PostgresStore
    private var isValid = true

    init(_ transaction: PostgresTransaction, store: PostgresStore) {
        self.transaction = transaction
        self.store = store
    }

    func invalidate() { isValid = false }

    func checkValid() {
        precondition(isValid, "Hangar: a transaction was used after its read or write closure returned")
    }

    var sql: PostgresStoreSQL { transaction.sql }

    /// The configuration of the store the transaction belongs to.
    public var configuration: StoreConfiguration { store.configuration }

    /// What opens the sealed bodies this transaction reads.
    var encryption: (any DocumentEncryption)? { store.configuration.encryption }

    // MARK: Documents

    public func document(in collection: String, key: String) async throws(HangarError) -> StoredDocument? {
        checkValid()
        return try await rows(sql.documents.document, binds(collection, key)) { row in
            try Self.storedDocument(row, collection: collection, key: key, encryption: encryption)
        }.first
    }

    /// ``document(in:key:)`` and the token of the snapshot it was read in, in one statement (a single read's
    /// answer carries its token without a round trip of its own).
    package func documentAndToken(in collection: String, key: String) async throws(HangarError) -> (
        StoredDocument?, CommitToken
    ) {
        checkValid()
        let statement = sql.documents.documentWithToken
        let found = try await rows(statement, binds(collection, key)) { row -> (StoredDocument?, CommitToken) in
            let cells = row.makeRandomAccess()
            let token = CommitToken(
                changeSequence: Int(try cells[1].decode(Int64?.self) ?? 0),
                walPosition: try cells[0].decode(String?.self).flatMap(CommitToken.walPosition))
            guard try cells[2].decode(Int64?.self) != nil else { return (nil, token) }
            let document = try Self.storedDocument(
                row, collection: collection, key: key, firstColumn: 2, encryption: encryption)
            return (document, token)
        }
        guard let first = found.first else {
            throw HangarError(.database, "A tokened read answered no row", sql: statement)
        }
        return first
    }

    public func document(in collection: String, key: String, revision: Int) async throws(HangarError)
        -> StoredDocument?
    {
        checkValid()
        var values = binds(collection, key)
        values.append(Int64(revision))
        return try await rows(sql.history.documentRevision, values) { row in
            try Self.storedDocument(row, collection: collection, key: key, encryption: encryption)
        }.first
    }

    public func exists(in collection: String, key: String) async throws(HangarError) -> Bool {
        checkValid()
        return try await !transaction.query(sql.documents.documentExists, binds(collection, key)).isEmpty
    }

    public func documents(in collection: String) async throws(HangarError) -> [StoredDocument] {
        checkValid()
        return try await rows(sql.documents.documentsOfCollection, binds(collection)) { row in
            let key = try row.makeRandomAccess()[0].decode(String.self)
            return try Self.storedDocument(
                row, collection: collection, key: key, firstColumn: 1, encryption: encryption)
        }
    }

    // MARK: Collections and keys

    public func collections() async throws(HangarError) -> [String] {
        checkValid()
        return try await strings(sql.documents.collections, PostgresBindings())
    }

    public func count(in collection: String) async throws(HangarError) -> Int {
        checkValid()
        return Int(try await transaction.scalar(sql.documents.countDocuments, binds(collection), as: Int64.self) ?? 0)
    }

    public func keys(in collection: String, order: KeyOrdering = .ascending, limit: Int? = nil, offset: Int = 0)
        async throws(HangarError) -> [String]
    {
        checkValid()
        let statement =
            switch order {
            case .ascending: sql.documents.keysPageAscending
            case .descending: sql.documents.keysPageDescending
            case .recentlyUpdated: sql.documents.keysPageRecentlyUpdated
            }
        var values = binds(collection)
        values.append(limit.map { Int64(max(0, $0)) })
        values.append(Int64(max(0, offset)))
        return try await strings(statement, values)
    }

    public func keys(in collection: String, classTag: String) async throws(HangarError) -> [String] {
        checkValid()
        return try await strings(sql.documents.keysByClassTag, binds(collection, classTag))
    }

    public func keys(in collection: String, olderThan version: DocumentVersion) async throws(HangarError)
        -> [String]
    {
        checkValid()
        var values = binds(collection)
        values.append(Int64(version.major))
        values.append(Int64(version.minor))
        return try await strings(sql.documents.keysOlderThanVersion, values)
    }

    public func keys(in collection: String, newerThanMajor major: Int) async throws(HangarError) -> [String] {
        checkValid()
        var values = binds(collection)
        values.append(Int64(major))
        return try await strings(sql.documents.keysNewerThanMajor, values)
    }

    // MARK: Indexes

    public func keys(in collection: String, index: String, equalTo value: PropertyList) async throws(HangarError)
        -> [String]
    {
        checkValid()
        guard let encoded = IndexValue.encoded(value) else {
            try await requireIndex(index, in: collection)
            return []
        }
        // Whether the index is built and the keys, in one statement (one round trip).
        var values = binds(collection, index)
        values.append(PostgresBytes.bind(encoded))
        let statement = sql.indexes.indexIsBuiltAndKeysWithIndexValue
        let found = try await rows(statement, values) { try $0.decode((Bool, [String]).self) }
        guard let (built, keys) = found.first else {
            throw HangarError(.database, "An index query returned no row", sql: statement)
        }
        guard built else { throw Self.indexNotBuilt(index, in: collection) }
        return keys
    }

    public func keys(in collection: String, index: String, from lower: PropertyList?, to upper: PropertyList?)
        async throws(HangarError) -> [String]
    {
        checkValid()
        try await requireIndex(index, in: collection)
        guard let conditions = IndexValue.rangeConditions(from: lower, to: upper) else { return [] }
        var statement = sql.indexes.keysInIndex
        var values = binds(collection, index)
        for (bound, comparison) in conditions {
            values.append(PostgresBytes.bind(bound))
            statement += " AND value \(comparison) $\(values.count)"
        }
        return try await strings(statement + " ORDER BY key", values)
    }

    /// Throws ``Hangar/HangarError/Code/notFound`` unless the store has built `index` for `collection`.
    private func requireIndex(_ index: String, in collection: String) async throws(HangarError) {
        guard try await !transaction.query(sql.indexes.indexIsBuilt, binds(collection, index)).isEmpty else {
            throw Self.indexNotBuilt(index, in: collection)
        }
    }

    private static func indexNotBuilt(_ index: String, in collection: String) -> HangarError {
        HangarError(
            .notFound, "No index \(index) is built (declare it in the store's configuration)", collection: collection)
    }

    // MARK: History and the change feed

    public func history(in collection: String, key: String) async throws(HangarError) -> [RevisionInfo] {
        checkValid()
        let statement = sql.history.revisions
        return try await rows(statement, binds(collection, key)) { row in
            let (revision, major, minor, classTag, savedAt, current) = try row.decode(
                (Int64, Int64, Int64, String?, Double, Int32).self)
            return RevisionInfo(
                revision: Int(revision), version: DocumentVersion(major: Int(major), minor: Int(minor)),
                classTag: classTag, savedAt: Date(timeIntervalSince1970: savedAt), isCurrent: current == 1)
        }
    }

    public func changes(since sequence: Int, in collection: String? = nil, limit: Int? = nil)
        async throws(HangarError) -> [Change]
    {
        checkValid()
        let counter = try await changeCounter()
        guard sequence >= counter.prunedThrough else {
            throw DocumentRules.changesTooOld(since: sequence, prunedThrough: counter.prunedThrough)
        }
        var values = PostgresBindings()
        values.append(Int64(sequence))
        values.append(limit.map { Int64(max(0, $0)) })
        let statement: String
        if let collection {
            values.append(collection)
            statement = sql.changes.changesOfCollectionSince
        } else {
            statement = sql.changes.changesSince
        }
        return try await rows(statement, values) { row in
            let (sequence, transactionID, collection, key, revision, kind, major, minor, classTag, committedAt) =
                try row.decode((Int64, Int64, String, String, Int64, String, Int64, Int64, String?, Double).self)
            guard let kind = Change.Kind(rawValue: kind) else {
                throw HangarError(.database, "The change feed holds a change of an unknown kind")
            }
            return Change(
                sequence: Int(sequence), transaction: Int(transactionID), collection: collection, key: key,
                revision: Int(revision), kind: kind, version: DocumentVersion(major: Int(major), minor: Int(minor)),
                classTag: classTag, committedAt: Date(timeIntervalSince1970: committedAt))
        }
    }

    public func lastChangeSequence() async throws(HangarError) -> Int {
        checkValid()
        return try await changeCounter().lastSequence
    }

    private func changeCounter() async throws(HangarError) -> (lastSequence: Int, prunedThrough: Int) {
        let statement = sql.changes.counter
        guard let row = try await transaction.query(statement).first else {
            throw HangarError(.database, "The store's change counter is missing", sql: statement)
        }
        let (last, _, pruned) = try transaction.decode(row, statement: statement) {
            try $0.decode((Int64, Int64, Int64).self)
        }
        return (Int(last), Int(pruned))
    }

    // MARK: Plumbing

    /// Runs `statement` and maps each row; a row that does not decode is ``Hangar/HangarError/Code/database``.
    func rows<Row>(_ statement: String, _ values: PostgresBindings, _ map: (PostgresRow) throws -> Row)
        async throws(HangarError) -> [Row]
    {
        let found = try await transaction.query(statement, values)
        var mapped: [Row] = []
        mapped.reserveCapacity(found.count)
        for row in found {
            do {
                mapped.append(try map(row))
            } catch let error as HangarError {
                throw error
            } catch {
                throw HangarError(.database, "A row has an unexpected shape", sql: statement, underlying: error)
            }
        }
        return mapped
    }

    /// The first column of each row, as text.
    func strings(_ statement: String, _ values: PostgresBindings) async throws(HangarError) -> [String] {
        try await rows(statement, values) { try $0.decode(String.self) }
    }

    /// Bindings of text values.
    func binds(_ texts: String...) -> PostgresBindings {
        var values = PostgresBindings()
        for text in texts { values.append(text) }
        return values
    }

    /// Reads ``PostgresStoreSQL/DocumentStatements/columns`` from `firstColumn` on.
    static func storedDocument(
        _ row: PostgresRow, collection: String, key: String, firstColumn: Int = 0,
        encryption: (any DocumentEncryption)?
    ) throws -> StoredDocument {
        let cells = row.makeRandomAccess()
        let c = firstColumn
        return StoredDocument(
            collection: collection, key: key, revision: Int(try cells[c].decode(Int64.self)),
            version: DocumentVersion(
                major: Int(try cells[c + 1].decode(Int64.self)), minor: Int(try cells[c + 2].decode(Int64.self))),
            classTag: try cells[c + 3].decode(String?.self),
            createdAt: Date(timeIntervalSince1970: try cells[c + 4].decode(Double.self)),
            updatedAt: Date(timeIntervalSince1970: try cells[c + 5].decode(Double.self)),
            body: PostgresBytes.bytes(try cells[c + 6].decode(ByteBuffer.self)),
            keyID: try cells[c + 7].decode(String?.self), encryption: encryption)
    }
}
