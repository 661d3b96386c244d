public import Hangar
import Logging
import PostgresNIO

/// A Hangar document store in a PostgreSQL database: the same documents, revisions, history, indexes and change
/// feed as the SQLite ``Hangar/Store``, shared by every instance of an app that opens it.
///
/// ```swift
/// let store = try await PostgresStore(url: "postgres://app:secret@db.internal:5432/app", store: configuration)
/// let revision = try await store.write { try await $0.save(amelia, key: "amelia") }
/// let loaded = try await store.read { try await $0.load(Pilot.self, key: "amelia") }
/// await store.close()
/// ```
///
/// It is a ``Hangar/DocumentStore``: code written against the protocol runs on it and on the SQLite store
/// unchanged. Reads run at `REPEATABLE READ` (one snapshot, as a SQLite read transaction) and never wait for
/// writers. Writes run at `READ COMMITTED`: a save locks the document's row until the transaction ends, so the
/// expected-revision check and the write are one step, as on SQLite; a write that would deadlock with another
/// is run again from the start (keep a write closure free of effects outside the store). The change feed's
/// sequences are given just after commit, in a short transaction of their own that numbers every change
/// committed since the last numbering, so commits never wait for each other and the sequence has no gaps; a
/// write returns once its changes are numbered (the `Engines` article has the details).
public final class PostgresStore: DocumentStore {
    /// The store configuration (registry, collections, retention) it was opened with.
    public let configuration: StoreConfiguration
    /// The PostgreSQL configuration it was opened with.
    public let postgresConfiguration: PostgresStoreConfiguration
    let engine: PostgresEngine
    /// Wakes this store's followers when one of its writes commits changes.
    let changeSignal = ChangeSignal()
    /// Rings ``changeSignal`` when any instance numbers changes; started by the first ``follow(after:in:)``.
    let listener: PostgresChangeListener
    /// Numbers what single writes left pending, one numbering for all the writes waiting.
    let numberer: PendingChangeNumberer

    /// Opens the store in `configuration`'s database and schema, creating or upgrading its tables (a schema of a
    /// newer Hangar is refused and left unchanged), and builds the declared indexes not built yet. With
    /// ``Hangar/StoreConfiguration/access`` `.readOnly`, the schema must exist and be up to date: nothing is
    /// created, upgraded or indexed, and every write throws ``Hangar/HangarError/Code/readOnly`` before it starts.
    public init(configuration: PostgresStoreConfiguration) async throws(HangarError) {
        postgresConfiguration = configuration
        let engine = try PostgresEngine(configuration: configuration)
        var store = configuration.store
        store.instruments = engine.instruments
        self.configuration = store
        self.engine = engine
        let changeSignal = changeSignal
        numberer = PendingChangeNumberer(engine: engine) { changeSignal.signal() }
        listener = PostgresChangeListener(
            primary: engine.primary, fixed: engine.listenConfiguration, channel: engine.sql.changes.channel,
            signal: changeSignal, logger: engine.logger, instruments: engine.instruments)
        do {
            if configuration.store.access == .readOnly {
                try await engine.requireCurrentSchema()
            } else {
                try await engine.prepareSchema()
                try await reconcileIndexes()
            }
            engine.startReplicas()
        } catch {
            await engine.close()
            throw error
        }
        engine.instruments.logger.info(
            "Store opened",
            metadata: [
                "database": .string(configuration.endpointDescription), "schema": .string(configuration.schema),
                "schema_version": .stringConvertible(engine.sql.currentVersion),
            ])
    }

    deinit {
        listener.cancel()
    }

    /// Opens the store at a `postgres://user:password@host:port/database` URL (in `schema`, default `hangar`).
    public convenience init(url: String, schema: String? = nil, store: StoreConfiguration = StoreConfiguration())
        async throws(HangarError)
    {
        try await self.init(configuration: PostgresStoreConfiguration(url: url, schema: schema, store: store))
    }

    /// Closes the store's connections, once the changes its single writes left pending are numbered; transactions
    /// started afterwards fail.
    public func close() async {
        await numberer.settled()
        await listener.stop()
        await engine.close()
        engine.instruments.logger.info(
            "Store closed",
            metadata: [
                "database": .string(postgresConfiguration.endpointDescription),
                "schema": .string(postgresConfiguration.schema),
            ])
    }

    // MARK: Transactions

    /// Runs `body` in a read-only transaction that sees one snapshot of the store, taken after every change of
    /// this store's writes that returned is numbered (in the feed). With ``PostgresStoreConfiguration/replicas``,
    /// on a fit replica (up to ``PostgresStoreConfiguration/maximumReplicaLag`` behind): pass a token to
    /// ``read(after:_:)`` to read what a write returned.
    public func read<Result: Sendable>(_ body: (PostgresReadTransaction) async throws -> Result) async throws
        -> Result
    {
        try await read(after: nil, token: nil, body)
    }

    /// Runs `body` in a read-only transaction that sees at least everything `token` covers: on a replica that
    /// has replayed it (waiting at most ``PostgresStoreConfiguration/replicaWait``), else on the primary. Returns
    /// the token of what it saw.
    public func read<Result: Sendable>(
        after token: CommitToken?, _ body: (PostgresReadTransaction) async throws -> Result
    ) async throws -> Tokened<Result> {
        let slot = CommitTokenSlot()
        let value = try await read(after: token, token: slot, body)
        return Tokened(value, token: try Self.taken(slot))
    }

    private func read<Result: Sendable>(
        after token: CommitToken?, token slot: CommitTokenSlot?,
        _ body: (PostgresReadTransaction) async throws -> Result
    ) async throws -> Result {
        await numberer.settled()
        return try await engine.withRead(after: token, .read, token: slot) { transaction in
            let reader = PostgresReadTransaction(transaction, store: self)
            defer { reader.invalidate() }
            return try await body(reader)
        }
    }

    /// The document at `key`, read in one statement on its own (its own snapshot), without the `BEGIN` and
    /// `COMMIT` round trips of ``read(_:)``: a third of a single-document read's round trips.
    public func document(in collection: String, key: String) async throws -> StoredDocument? {
        try await engine.withRead(after: nil, .singleRead) { transaction in
            let reader = PostgresReadTransaction(transaction, store: self)
            defer { reader.invalidate() }
            return try await reader.document(in: collection, key: key)
        }
    }

    /// ``document(in:key:)`` at least as new as `token`, with the token of what it saw: read in the same statement,
    /// of the same snapshot, so a tokened read is one round trip too.
    public func document(in collection: String, key: String, after token: CommitToken?) async throws
        -> Tokened<StoredDocument?>
    {
        let (document, seen) = try await engine.withRead(after: token, .singleRead) { transaction in
            let reader = PostgresReadTransaction(transaction, store: self)
            defer { reader.invalidate() }
            return try await reader.documentAndToken(in: collection, key: key)
        }
        return Tokened(document, token: seen)
    }

    /// The token a slot received; a transaction that returned always leaves one.
    static func taken(_ slot: CommitTokenSlot) throws(HangarError) -> CommitToken {
        guard let token = slot.token else { throw HangarError(.database, "The transaction left no commit token") }
        return token
    }

    /// Runs `body` in a write transaction: everything it saves and deletes is committed together when it
    /// returns, and nothing is when it throws. After a deadlock with another writer it runs again from the
    /// start (up to 5 times).
    ///
    /// - Throws: ``Hangar/HangarError/Code/outcomeUnknown`` when the connection was lost during `COMMIT`: the
    ///   write may or may not be stored; save again with the expected revision to find out.
    @discardableResult
    public func write<Result: Sendable>(_ body: (PostgresWriteTransaction) async throws -> Result) async throws
        -> Result
    {
        try await write(token: nil, body)
    }

    /// ``write(_:)``, returning the token of its commit: its WAL position on the primary, read just after
    /// `COMMIT` on the same connection, and the feed's last sequence then.
    ///
    /// - Throws: ``Hangar/HangarError/Code/outcomeUnknown`` also when the connection was lost after `COMMIT`,
    ///   before the token was read.
    public func writeReturningToken<Result: Sendable>(_ body: (PostgresWriteTransaction) async throws -> Result)
        async throws -> Tokened<Result>
    {
        let slot = CommitTokenSlot()
        let value = try await write(token: slot, body)
        return Tokened(value, token: try Self.taken(slot))
    }

    func write<Result: Sendable>(
        token slot: CommitTokenSlot?, _ body: (PostgresWriteTransaction) async throws -> Result
    ) async throws -> Result {
        guard configuration.access == .readWrite else {
            throw HangarError(
                .readOnly, "The store in \(postgresConfiguration.schema) was opened read-only; nothing was written")
        }
        var recorded = false
        let result = try await engine.withTransaction(.write, token: slot) { transaction in
            let writer = PostgresWriteTransaction(transaction, store: self)
            defer { writer.invalidate() }
            let result = try await body(writer)
            recorded = transaction.changes.hasRecorded
            return result
        }
        if recorded { changeSignal.signal() }
        return result
    }

    /// Every change after `sequence` (of `collection` only, when given), then each one as it commits, until the
    /// task iterating it is cancelled. A commit through this store wakes it at once; one through another
    /// instance too, by a notification (`LISTEN` on a connection of the store's own, opened by the first
    /// follower), and at the latest within about ``Hangar/StoreConfiguration/followPollInterval`` when a
    /// notification is lost.
    public func follow(after sequence: Int, in collection: String? = nil) -> ChangeFeed {
        listener.start()
        return ChangeFeed(
            after: sequence, collection: collection, signal: changeSignal,
            pollInterval: configuration.followPollInterval
        ) { [self] last, collection, limit in
            var (changes, lastSequence) = try await changes(after: last, in: collection, limit: limit)
            // Nothing new: changes whose writer lost its connection between COMMIT and their numbering (if any)
            // are numbered now, and read.
            if changes.isEmpty, await engine.numberPendingChanges() {
                (changes, lastSequence) = try await self.changes(after: last, in: collection, limit: limit)
            }
            return ChangeFeed.Batch(changes: changes, lastSequence: lastSequence)
        }
    }

    /// The changes after `last` (of `collection`, when given), at most `limit`, and the last sequence, in one
    /// read transaction.
    private func changes(after last: Int, in collection: String?, limit: Int) async throws -> ([Change], Int) {
        try await read { transaction in
            (
                try await transaction.changes(since: last, in: collection, limit: limit),
                try await transaction.lastChangeSequence()
            )
        }
    }
}
