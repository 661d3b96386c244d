public import PropertyList

/// A document store on any engine, with one behaviour: `SQLiteStore` (module `HangarSQLite`) or `PostgresStore`
/// (module `HangarPostgres`).
///
/// Code written against `DocumentStore` moves from one engine to another by changing only how it opens the
/// store:
///
/// ```swift
/// func rename<S: DocumentStore>(_ key: String, to name: String, in store: S) async throws {
///     try await store.update(Pilot.self, key: key) { $0.name = name }
/// }
/// ```
///
/// Transactions are async and their closures may `await`; every read and write a transaction offers is
/// `async` here (on the SQLite store they also exist synchronously, in `SQLiteStore`'s blocking `read` and
/// `write`). The rules are the same on every engine: revisions, expected-revision conflicts, history,
/// newer majors refused and never overwritten, unknown keys of a newer minor kept, unique indexes, and the
/// gap-free change feed.
public protocol DocumentStore: Sendable {
    /// What a read transaction is handed.
    associatedtype Reader: DocumentReader
    /// What a write transaction is handed.
    associatedtype Writer: DocumentWriter

    /// The configuration the store was opened with (registry, collections, retention).
    var configuration: StoreConfiguration { get }

    /// Runs `body` in a read transaction that sees one consistent state of the store.
    func read<Result: Sendable>(_ body: (Reader) async throws -> Result) async throws -> Result

    /// Runs `body` in a write transaction: everything it saves and deletes is committed together when it
    /// returns, and nothing is when it throws.
    @discardableResult
    func write<Result: Sendable>(_ body: (Writer) async throws -> Result) async throws -> Result

    /// Every change after `sequence` (of `collection` only, when given), then each one as it commits, until
    /// the task iterating it is cancelled.
    func follow(after sequence: Int, in collection: String?) -> ChangeFeed

    /// The document at `key`, as `read { try await $0.document(in: collection, key: key) }` reads it, or in a
    /// cheaper way the engine has for one document (PostgreSQL: one statement, no transaction round trips).
    func document(in collection: String, key: String) async throws -> StoredDocument?

    /// Performs a save or delete planned before its write begins (``SingleWrite``) in the engine's cheapest way for
    /// one write, or, where the plan alone cannot decide, as `transaction` in a write transaction of its own: once,
    /// never both. What ``save(_:key:in:expectedRevision:)``, ``save(envelope:key:in:expectedRevision:)`` and
    /// ``delete(key:in:expectedRevision:)`` run; the default is the transaction.
    func perform(
        _ single: SingleWrite, inTransactionOtherwise transaction: (Writer) async throws -> SingleWrite.Outcome
    ) async throws -> SingleWrite.Outcome

    // MARK: Commit tokens (DocumentStore+Tokens.swift, with the defaults for an engine of one copy)

    /// ``write(_:)``, returning the token of its commit (``CommitToken``).
    func writeReturningToken<Result: Sendable>(_ body: (Writer) async throws -> Result) async throws
        -> Tokened<Result>

    /// ``read(_:)`` of a state at least as new as `token` (`nil`: any), returning the token of what it saw.
    func read<Result: Sendable>(after token: CommitToken?, _ body: (Reader) async throws -> Result) async throws
        -> Tokened<Result>

    /// ``document(in:key:)`` at least as new as `token`, with the token of what it saw.
    func document(in collection: String, key: String, after token: CommitToken?) async throws
        -> Tokened<StoredDocument?>

    /// ``perform(_:inTransactionOtherwise:)``, returning the token of its commit.
    func performReturningToken(
        _ single: SingleWrite, inTransactionOtherwise transaction: (Writer) async throws -> SingleWrite.Outcome
    ) async throws -> Tokened<SingleWrite.Outcome>

    /// Closes the store: what it holds open (connections, a client) is released, and transactions started
    /// afterwards fail. Closing twice does nothing more.
    func close() async

    // MARK: Where the engine keeps it (DocumentStore+Storage.swift, with the defaults)

    /// What the engine tells about where and how it keeps the store: its name, its file or server, its sizes.
    func storageFacts() async -> StorageFacts

    /// The engine's own check of what it stored (SQLite's integrity check), each problem as one line: empty for a
    /// sound store, `nil` for an engine that has no such check. Documents are read by ``unreadableDocuments()``.
    func storageProblems() async throws -> [String]?

    /// Copies the whole store, consistently, to a new file at `destination` while readers and writers go on, for
    /// an engine that keeps it in one file (``StorageFacts/file``); ``HangarError/Code/unsupported`` otherwise.
    /// Blocking, as SQLite's online backup is (`SQLiteStore.backup(to:)` is this requirement).
    func backup(to destination: String) throws
}

/// The reads of a transaction, on any engine (``DocumentStore``).
///
/// Models are read with ``load(_:key:in:)`` and ``documents(_:in:)``, which every reader has through the
/// stored documents it returns.
public protocol DocumentReader {
    /// The configuration of the store the transaction belongs to.
    var configuration: StoreConfiguration { get }

    /// The document at `key` in `collection` as stored, or `nil`.
    func document(in collection: String, key: String) async throws(HangarError) -> StoredDocument?

    /// One revision of a document as stored, current or kept in history; `nil` when it is not kept.
    func document(in collection: String, key: String, revision: Int) async throws(HangarError) -> StoredDocument?

    /// Whether a document is stored at `key` in `collection`.
    func exists(in collection: String, key: String) async throws(HangarError) -> Bool

    /// Every document of `collection` as stored, in key order.
    func documents(in collection: String) async throws(HangarError) -> [StoredDocument]

    /// The names of the collections that hold documents, sorted.
    func collections() async throws(HangarError) -> [String]

    /// How many documents `collection` holds.
    func count(in collection: String) async throws(HangarError) -> Int

    /// The keys of `collection`, in `order`, at most `limit` of them after skipping `offset`. Keys sort by
    /// their UTF-8 bytes on every engine.
    func keys(in collection: String, order: KeyOrdering, limit: Int?, offset: Int) async throws(HangarError)
        -> [String]

    /// The keys of the documents of `collection` whose content is tagged `classTag`, sorted.
    func keys(in collection: String, classTag: String) async throws(HangarError) -> [String]

    /// The keys of the documents of `collection` whose index `index` holds `value`, sorted.
    func keys(in collection: String, index: String, equalTo value: PropertyList) async throws(HangarError)
        -> [String]

    /// The keys of the documents of `collection` whose index `index` holds a value from `lower` to `upper`.
    func keys(in collection: String, index: String, from lower: PropertyList?, to upper: PropertyList?)
        async throws(HangarError) -> [String]

    /// The entries an index scan reads, in its order (``IndexScan/statement(table:placeholder:)``): what
    /// ``page(_:documents:)`` and ``bounds(_:)`` read.
    @_spi(Engine) func indexEntries(_ scan: IndexScan) async throws(HangarError) -> [IndexScan.Entry]

    /// How many keys an index scan's range holds (``IndexScan/countStatement(table:placeholder:)``): what
    /// ``count(_:)`` reads.
    @_spi(Engine) func indexKeyCount(_ scan: IndexScan) async throws(HangarError) -> Int

    /// The indexes built for `collection`, with the fingerprints of their definitions, sorted by name.
    @_spi(Engine) func builtIndexes(in collection: String) async throws(HangarError) -> [BuiltIndex]

    /// The keys of the documents of `collection` stored at a version older than `version`, sorted.
    func keys(in collection: String, olderThan version: DocumentVersion) async throws(HangarError) -> [String]

    /// The keys of the documents of `collection` stored at a major newer than `major`, sorted.
    func keys(in collection: String, newerThanMajor major: Int) async throws(HangarError) -> [String]

    /// The kept revisions of a document, oldest first, the current one last.
    func history(in collection: String, key: String) async throws(HangarError) -> [RevisionInfo]

    /// The changes committed after `sequence`, oldest first, at most `limit`; only those of `collection`
    /// when given. Throws ``HangarError/changesTooOld`` when changes after `sequence` were pruned.
    func changes(since sequence: Int, in collection: String?, limit: Int?) async throws(HangarError) -> [Change]

    /// The sequence of the last change committed (0 when there has been none).
    func lastChangeSequence() async throws(HangarError) -> Int
}

/// The writes of a transaction, on any engine (``DocumentStore``).
public protocol DocumentWriter: DocumentReader {
    /// Saves `document` under `key` and returns its new revision.
    ///
    /// - `expectedRevision`: when given, the save happens only if the stored revision is exactly that
    ///   (0: the document must not exist yet); otherwise it throws ``HangarError/conflict`` and writes nothing.
    /// - A stored document of a newer major is never overwritten (``HangarError/newerMajor``) unless
    ///   `overwritingNewerMajor` is true.
    /// - A stored document of the same major and a newer minor keeps the keys this code does not know, and
    ///   its minor: an older app never destroys a newer app's additions.
    func save<Document: VersionedDocument>(
        _ document: Document, key: String, in collection: String, expectedRevision: Int?, overwritingNewerMajor: Bool
    ) async throws(HangarError) -> Int

    /// Saves an envelope (a dictionary with `majorVersion` and `minorVersion`) under `key`, as it is, and
    /// returns its new revision. For files and tools that have no model type; `expectedRevision` and
    /// `overwritingNewerMajor` work as in the model save. When the collection's options name a format, a
    /// document of a newer major than it reads is refused; either way, a stored document of a newer major
    /// than the one given is not replaced (an older file never overwrites newer data) unless forced.
    func save(
        envelope: PropertyList, key: String, in collection: String, expectedRevision: Int?, overwritingNewerMajor: Bool
    ) async throws(HangarError) -> Int

    /// Deletes the document at `key`; returns whether there was one. Its last revision joins the history (as
    /// the collection's policy keeps it), so it can be restored. `expectedRevision` works as in a save; a stored
    /// document of a newer major than the collection's declared format reads is not deleted
    /// (``HangarError/newerMajor``) unless `overwritingNewerMajor`, as it would not be overwritten.
    func delete(key: String, in collection: String, expectedRevision: Int?, overwritingNewerMajor: Bool)
        async throws(HangarError) -> Bool

    /// Saves a kept earlier revision again, as a new revision; returns the new revision number. Like an
    /// envelope save, a stored document of a newer major than the restored revision's (or than the collection's
    /// declared format reads) is not replaced (``HangarError/newerMajor``) unless `overwritingNewerMajor`.
    func restore(key: String, in collection: String, revision: Int, overwritingNewerMajor: Bool)
        async throws(HangarError) -> Int

    /// At most `limit` stored bodies of `part` not sealed with the key `keyID` (plaintext ones too), after
    /// `position` (collection, key, revision; from the start when `nil`), in that order: what
    /// ``DocumentStore/rekey(batchSize:progress:)`` re-encrypts.
    @_spi(Engine) func bodies(
        in part: StoredPart, notSealedWith keyID: String, after position: StoredDocument?, limit: Int
    )
        async throws(HangarError) -> [StoredDocument]

    /// Replaces the stored bytes of `document` (read from `part`) with `body`, sealed with `keyID`, if that row
    /// still holds the revision and key id it was read with; returns whether it did. Revision, timestamps, index
    /// entries and the change feed are left as they are.
    @_spi(Engine) func replaceBody(
        of document: StoredDocument, in part: StoredPart, with body: [UInt8], keyID: String
    )
        async throws(HangarError) -> Bool
}

/// Where a stored body is: a document's current revision, or a revision kept in its history.
public enum StoredPart: Sendable, Hashable, CaseIterable {
    /// The current revisions (the `documents` table).
    case current
    /// The kept earlier revisions (the `history` table).
    case history
}

// MARK: The common forms

extension DocumentStore {
    /// Every change after `sequence`, then each one as it commits (``follow(after:in:)``), of every collection.
    public func follow(after sequence: Int) -> ChangeFeed {
        follow(after: sequence, in: nil)
    }

    /// The document at `key`, in a read transaction of its own.
    public func document(in collection: String, key: String) async throws -> StoredDocument? {
        try await read { try await $0.document(in: collection, key: key) }
    }

    /// The document at `key` read as a `Document` (migrated in memory when older), on its own as
    /// ``document(in:key:)`` reads it; `nil` when there is none.
    public func load<Document: VersionedDocument>(
        _ type: Document.Type, key: String, in collection: String = Document.collection
    ) async throws -> Loaded<Document>? {
        guard let stored = try await document(in: collection, key: key) else { return nil }
        return try DocumentRules.decode(stored, as: type, configuration: configuration)
    }
}

extension DocumentReader {
    /// The document at `key` read as a `Document`, migrated in memory when it is older; `nil` when there is none.
    /// A document that cannot be read (corrupt bytes, unknown class tag, newer major) throws and is left as it is.
    public func load<Document: VersionedDocument>(
        _ type: Document.Type, key: String, in collection: String = Document.collection
    ) async throws(HangarError) -> Loaded<Document>? {
        guard let stored = try await document(in: collection, key: key) else { return nil }
        return try DocumentRules.decode(stored, as: type, configuration: configuration)
    }

    /// An earlier revision of a document, read as a `Document` (migrated in memory when older).
    public func load<Document: VersionedDocument>(
        _ type: Document.Type, key: String, revision: Int, in collection: String = Document.collection
    ) async throws(HangarError) -> Loaded<Document>? {
        guard let stored = try await document(in: collection, key: key, revision: revision) else { return nil }
        return try DocumentRules.decode(stored, as: type, configuration: configuration)
    }

    /// Every document of `collection` read as a `Document`, in key order; those that cannot be read are
    /// listed in ``DocumentBatch/quarantined`` with why, not skipped.
    public func documents<Document: VersionedDocument>(
        _ type: Document.Type, in collection: String = Document.collection
    ) async throws(HangarError) -> DocumentBatch<Document> {
        DocumentRules.batch(try await documents(in: collection), as: type, configuration: configuration)
    }

    /// The keys of `collection` in ascending order, all of them.
    public func keys(in collection: String) async throws(HangarError) -> [String] {
        try await keys(in: collection, order: .ascending, limit: nil, offset: 0)
    }

    /// Every change committed after `sequence`, of every collection.
    public func changes(since sequence: Int) async throws(HangarError) -> [Change] {
        try await changes(since: sequence, in: nil, limit: nil)
    }
}

extension DocumentWriter {
    /// Saves `document` under `key` (in its type's collection unless told otherwise); `expectedRevision`, when
    /// given, must be the stored revision (0: none), or nothing is written (``HangarError/conflict``).
    @discardableResult
    public func save<Document: VersionedDocument>(
        _ document: Document, key: String, in collection: String = Document.collection, expectedRevision: Int? = nil
    ) async throws(HangarError) -> Int {
        try await save(
            document, key: key, in: collection, expectedRevision: expectedRevision, overwritingNewerMajor: false)
    }

    /// Saves an envelope as it is under `key`; `expectedRevision` works as in the model save.
    @discardableResult
    public func save(envelope: PropertyList, key: String, in collection: String, expectedRevision: Int? = nil)
        async throws(HangarError) -> Int
    {
        try await save(
            envelope: envelope, key: key, in: collection, expectedRevision: expectedRevision,
            overwritingNewerMajor: false)
    }

    /// Deletes the document at `key`; returns whether there was one. `expectedRevision`, when given, must be the
    /// stored revision, or nothing is deleted (``HangarError/conflict``); a newer major is not deleted
    /// (``HangarError/newerMajor``).
    @discardableResult
    public func delete(key: String, in collection: String, expectedRevision: Int? = nil) async throws(HangarError)
        -> Bool
    {
        try await delete(key: key, in: collection, expectedRevision: expectedRevision, overwritingNewerMajor: false)
    }

    /// Saves a kept earlier revision again, as a new revision; returns the new revision number. A stored newer
    /// major is not replaced (``HangarError/newerMajor``).
    @discardableResult
    public func restore(key: String, in collection: String, revision: Int) async throws(HangarError) -> Int {
        try await restore(key: key, in: collection, revision: revision, overwritingNewerMajor: false)
    }
}
