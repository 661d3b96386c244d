import Foundation
import Hangar
import Logging
import Synchronization

/// A versioned document store in one SQLite file (or in memory).
///
/// Documents are addressed by collection and key; each is saved as its envelope encoded as a binary property
/// list, with its revision, version, class tag and timestamps. Every `write` is one transaction, all or
/// nothing; reads run in parallel with the writer and with each other.
///
/// ```swift
/// let store = try SQLiteStore(path: SQLiteStore.defaultPath(application: "Pilots"), store: configuration)
/// let revision = try store.write { try $0.save(amelia, key: "amelia") }
/// let loaded = try store.read { try $0.load(Pilot.self, key: "amelia") }
/// ```
///
/// Open one `SQLiteStore` per file in a process and share it: it is `Sendable`. Two stores (or processes) on the
/// same file also work; their writes are serialized by SQLite's lock, waiting up to the busy timeout.
public final class SQLiteStore: Sendable {
    /// The file, or `":memory:"`.
    public let path: String
    /// The store configuration (registry, collections, retention) it was opened with.
    public let configuration: StoreConfiguration
    /// The SQLite configuration it was opened with.
    public let sqliteConfiguration: SQLiteStoreConfiguration
    /// Where the store logs and what it measures with (``StoreConfiguration/observability``).
    let instruments: StoreInstruments
    /// The writer connection and its turn (``SQLiteStore+Maintenance`` takes the turn too).
    let writer: SQLiteWriter
    private let readers: ReaderPool?
    /// Wakes this store's followers (``follow(after:in:)``) when a write commits changes.
    let changeSignal: ChangeSignal
    /// When this store's commits next look for changes old enough to prune (``ChangeRetention/maximumAge``).
    let changePruning = ChangePruningSchedule()
    /// Whether ``close()`` was called: every transaction then fails.
    private let closed = Atomic<Bool>(false)

    /// Opens the store at `configuration`'s path, creating it (and its folder) when needed, and brings its schema
    /// up to date. A store written by a newer Hangar is refused and left unchanged. With
    /// ``StoreConfiguration/access`` `.readOnly`, the store must exist and be up to date: nothing is created or
    /// changed.
    ///
    /// A store that cannot be written (a read-only file or file system) is refused with
    /// ``HangarError/readOnly`` unless opened `.readOnly`.
    public init(configuration sqlite: SQLiteStoreConfiguration) throws(HangarError) {
        let path = sqlite.path
        self.path = path
        let instruments = StoreInstruments(engine: "sqlite", observability: sqlite.store.observability)
        var configured = sqlite.store
        configured.instruments = instruments
        self.instruments = instruments
        self.configuration = configured
        self.sqliteConfiguration = sqlite
        let configuration = sqlite
        try configuration.validateMirrors()
        let inMemory = path == ":memory:"
        let readOnly = configuration.access == .readOnly
        // An empty path (SQLite's private temporary database) and a `file:` URI name no file of ours to prepare.
        let plainFile = !inMemory && !path.isEmpty && !path.hasPrefix("file:")
        if plainFile && !readOnly { try Self.prepareFile(at: path, configuration: configuration.store) }
        let location = readOnly && plainFile ? try Self.readOnlyLocation(of: path) : path
        let connection = try Self.openConnection(path: path, location: location, configuration: configuration)
        if readOnly {
            try SQLiteSchema.requireCurrent(connection, path: path)
        } else if let upgradedFrom = try SQLiteSchema.migrate(connection, path: path) {
            // Version 0 is a new file: its tables were just created.
            instruments.logger.log(
                level: upgradedFrom == 0 ? .info : .notice,
                upgradedFrom == 0 ? "Store created" : "Store schema upgraded",
                metadata: [
                    "path": .string(path), "from_version": .stringConvertible(upgradedFrom),
                    "schema_version": .stringConvertible(SQLiteSchema.currentVersion),
                ])
        }
        let changeSignal = ChangeSignal()
        self.changeSignal = changeSignal
        writer = SQLiteWriter(
            connection, fileLock: inMemory ? WriterLocks.privateLock() : WriterLocks.lock(for: path), label: path,
            policy: configuration.groupCommit
        ) { group, connection in
            Self.committed(group, on: connection, signal: changeSignal, instruments: instruments)
        }
        if inMemory {
            readers = nil
        } else {
            readers = ReaderPool(maximum: configuration.maximumReaders, path: path) {
                @Sendable () throws(SQLiteError) in
                let reader = try SQLiteConnection(
                    path: location, mode: .readOnly, busyTimeout: configuration.busyTimeoutMilliseconds,
                    vfs: configuration.vfs)
                try reader.execute("PRAGMA query_only = ON")
                return reader
            }
        }
        instruments.logger.info(
            "Store opened",
            metadata: [
                "path": .string(path), "schema_version": .stringConvertible(SQLiteSchema.currentVersion),
                "access": .string(readOnly ? "read-only" : "read-write"),
            ])
        guard !readOnly else { return }
        try reconcileIndexes()
        writeMirrors(mirrorsBehind)
    }

    deinit {
        // The readers before the writer, whose connection closes last and so checkpoints the log (see close()).
        readers?.closeReleased()
        instruments.logger.debug("Store released", metadata: ["path": .string(path)])
    }

    /// Opens the store at `path` (see ``init(configuration:)``) with the SQLite settings' defaults.
    public convenience init(path: String, store: StoreConfiguration = StoreConfiguration()) throws(HangarError) {
        try self.init(configuration: SQLiteStoreConfiguration(path: path, store: store))
    }

    /// A private store in memory, gone when released (for tests and caches).
    public static func inMemory(store: StoreConfiguration = StoreConfiguration()) throws(HangarError) -> SQLiteStore {
        try SQLiteStore(path: ":memory:", store: store)
    }

    /// Opens the connection that writes (or, read-only, the first reader) at `location` (`path`, or its
    /// immutable URI on a read-only file system).
    private static func openConnection(path: String, location: String, configuration: SQLiteStoreConfiguration)
        throws(HangarError) -> SQLiteConnection
    {
        let readOnly = configuration.access == .readOnly
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(
                path: location, mode: readOnly ? .readOnly : .readWrite,
                busyTimeout: configuration.busyTimeoutMilliseconds, vfs: configuration.vfs)
            if !readOnly && connection.isReadOnly {
                throw HangarError(
                    .readOnly,
                    "Cannot open the store at \(path) for writing: the file or its file system is read-only")
            }
            if path != ":memory:" && !readOnly {
                // WAL: readers never block the writer. The journal is truncated back to 64 MiB after
                // checkpoints, so it cannot grow without bound.
                _ = try connection.retryingWhileBusy { () throws(SQLiteError) in
                    try connection.text("PRAGMA journal_mode = WAL")
                }
                try connection.execute("PRAGMA journal_size_limit = 67108864")
                // The savepoint journal of a write group's members (the pages each changes, to undo it alone) is
                // kept in memory, bounded by the group's size (``SQLiteStoreConfiguration/GroupCommit``): on
                // disk it cost a temporary file's writes per group. The writer runs point queries, so nothing
                // else it keeps there grows with the store.
                try connection.execute("PRAGMA temp_store = MEMORY")
            }
            try connection.execute("PRAGMA synchronous = \(configuration.synchronous.rawValue)")
            try connection.execute("PRAGMA foreign_keys = ON")
            if readOnly { try connection.execute("PRAGMA query_only = ON") }
        } catch let error as HangarError {
            throw error
        } catch let error as SQLiteError {
            throw HangarError(
                HangarError.Code(sqliteResult: error.code, systemErrno: error.systemErrno),
                "Cannot open the store at \(path): \(error.message)", resultCode: error.code)
        } catch {
            throw HangarError(.database, "Cannot open the store at \(path): \(error)")
        }
        if path != ":memory:" && !readOnly { try SQLiteSchema.requireWriteAheadLog(connection, path: path) }
        return connection
    }

    // MARK: Transactions

    /// Runs `body` in a read transaction: it sees one consistent state of the store, the last commit as of
    /// its start, and never blocks writers.
    public func read<Result>(_ body: (SQLiteReadTransaction) throws -> Result) throws -> Result {
        try requireOpen()
        guard let readers else {
            // An in-memory store reads on its writer connection, which a write on this thread already holds.
            precondition(
                !Self.isWriting(self),
                "Hangar: store.read inside store.write of the same in-memory store; read through the write transaction")
            return try writer.withConnection { connection in
                try requireOpen()
                return try Self.run(SQLiteReadTransaction(connection: connection, store: self), on: connection, body)
            }
        }
        return try readers.withConnection { connection in
            try Self.run(SQLiteReadTransaction(connection: connection, store: self), on: connection, body)
        }
    }

    /// ``read(_:)`` for async code, without holding a thread while it waits.
    ///
    /// The caller waits, in the order callers came, for a free reader connection (for an in-memory store, for
    /// the writer's) without holding a thread; `body` then runs on that connection's serial queue, off the
    /// cooperative pool: however many tasks await, the store uses one thread a connection at most. A task
    /// cancelled while it waits gives up its place and throws `CancellationError`; once `body` has started it
    /// runs to the end.
    public func read<Result: Sendable>(_ body: @Sendable (SQLiteReadTransaction) throws -> Result) async throws
        -> Result
    {
        try await readAwaiting { try body($0) }
    }

    /// The async read for a body that may `await` (the ``DocumentStore`` form): the connection is the
    /// task's until `body` returns, and nonisolated code it awaits runs on the connection's queue too.
    public func read<Result: Sendable>(_ body: (SQLiteReadTransaction) async throws -> Result) async throws
        -> Result
    {
        try await readAwaiting(body)
    }

    private func readAwaiting<Result>(_ body: (SQLiteReadTransaction) async throws -> Result) async throws -> Result {
        try requireOpen()
        guard let readers else {
            precondition(
                !Self.isWritingInThisTask(self),
                "Hangar: store.read inside store.write of the same in-memory store; read through the write transaction")
            return try await writer.withLeasedConnection { connection in
                try requireOpen()
                return try await Self.run(
                    SQLiteReadTransaction(connection: connection, store: self), on: connection, body)
            }
        }
        return try await readers.withLeasedConnection { connection in
            try await Self.run(SQLiteReadTransaction(connection: connection, store: self), on: connection, body)
        }
    }

    private static func run<Transaction: SQLiteReadTransaction, Result>(
        _ transaction: Transaction, on connection: SQLiteConnection, _ body: (Transaction) async throws -> Result
    ) async throws -> Result {
        let start = ContinuousClock.now
        defer {
            transaction.invalidate()
            transaction.store.instruments.finished(.read, since: start)
        }
        do throws(TransactionFailure<any Error>) {
            return try await connection.transaction(immediate: false) { try await body(transaction) }
        } catch {
            throw error.unwrapped
        }
    }

    private static func run<Transaction: SQLiteReadTransaction, Result>(
        _ transaction: Transaction, on connection: SQLiteConnection, _ body: (Transaction) throws -> Result
    ) throws -> Result {
        let start = ContinuousClock.now
        defer {
            transaction.invalidate()
            transaction.store.instruments.finished(.read, since: start)
        }
        do throws(TransactionFailure<any Error>) {
            return try connection.transaction(immediate: false) { try body(transaction) }
        } catch {
            throw error.unwrapped
        }
    }

    /// Closes the store: every operation started afterwards (transactions, ``checkIntegrity()``,
    /// ``backup(to:)``, ``checkpoint()``) throws ``HangarError/Code/closed``; returns once the operations under
    /// way have ended and the file, its write-ahead log and its shared memory are closed. Closing twice does
    /// nothing more.
    public func close() async {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // Readers first: the last connection to close checkpoints the log and removes it, which only the writer's
        // can (a reader is read-only). Closed the other way, a store that had read left its `-wal` file full.
        await readers?.close()
        await writer.close()
        instruments.logger.debug("Store closed", metadata: ["path": .string(path)])
    }

    /// Throws unless the store is open. Checked again once an operation holds its connection: a close that came
    /// first has closed it.
    func requireOpen() throws(HangarError) {
        guard !closed.load(ordering: .acquiring) else {
            throw HangarError(.closed, "The store at \(path) is closed")
        }
    }
}

extension TransactionFailure<any Error> {
    /// The error a store call throws: SQLite's as a ``HangarError``, the body's as it is.
    fileprivate var unwrapped: any Error {
        switch self {
        case .sqlite(let failure): HangarError(failure)
        case .body(let failure): failure
        }
    }
}
