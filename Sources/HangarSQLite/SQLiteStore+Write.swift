public import Hangar

// Every write enters here: blocking, async, and the single write of a model, planned beforehand. Each is one write of a
// group on the store's writer (``SQLiteWriter``), whose turn it waits for and which commits it; the transaction's body
// runs as a ``SQLiteWriteTransaction``.

extension SQLiteStore {
    /// Runs `body` in a write transaction: everything it saves and deletes is committed together when it
    /// returns, and nothing is when it throws. A write that committed returns normally: mirror files that
    /// cannot be written are retried later and reported another way (``mirrorFailures()``). Writes are
    /// serialized, and concurrent ones share a commit (``SQLiteStoreConfiguration/GroupCommit``); a `write`
    /// inside another on the same store is a programmer error.
    @discardableResult
    public func write<Result>(_ body: (SQLiteWriteTransaction) throws -> Result) throws -> Result {
        // Keyed by the writer lock: a write inside a write of another store on the same file would wait forever.
        precondition(
            !Self.isWriting(self), "Hangar: store.write called inside a write transaction of the same store (or file)")
        let start = try beginWrite()
        defer { instruments.finished(.write, since: start) }
        let member = try Self.$writingStores.withValue(Self.writingStores.union([writer.lockID])) {
            try writer.write { connection in try writeMember(on: connection, body) }
        }
        writeMirrors(member.mirrors)
        return member.result
    }

    /// ``write(_:)`` for async code, without holding a thread while it waits.
    ///
    /// The caller waits for the writer's turn in the order writers came (blocking writers included) without
    /// holding a thread; `body` then runs on the writer's thread. A task cancelled while it waits gives up its
    /// place and throws `CancellationError`, having written nothing; once `body` has started, the write is
    /// committed or rolled back as if the task had not been cancelled. SQLite's busy timeout, when another
    /// process holds the file's lock, is waited out on that thread.
    @discardableResult
    public func write<Result: Sendable>(_ body: @Sendable (SQLiteWriteTransaction) throws -> Result) async throws
        -> Result
    {
        try await writeAwaiting { try body($0) }
    }

    /// The async write for a body that may `await` (the ``DocumentStore`` form): the writer's turn is the
    /// task's until `body` returns, so keep what it awaits short.
    @discardableResult
    public func write<Result: Sendable>(_ body: (SQLiteWriteTransaction) async throws -> Result) async throws
        -> Result
    {
        try await writeAwaiting(body)
    }

    /// Applies `single`'s plan in the writer's turn, on the thread that holds it when its place comes (no thread
    /// switch: the model was encoded, the envelope into its bytes and its index entries read, before it queued). A
    /// model save that finds a stored newer minor, whose keys it must keep, runs as `transaction` instead (in a
    /// write of this task: it needs the model), having written nothing.
    public func perform(
        _ single: SingleWrite,
        inTransactionOtherwise transaction: (SQLiteWriteTransaction) async throws -> SingleWrite.Outcome
    ) async throws -> SingleWrite.Outcome {
        precondition(
            !Self.isWritingInThisTask(self),
            "Hangar: store.write called inside a write transaction of the same store (or file)")
        let start = try beginWrite()
        let member: WriteMember<SingleWrite.Outcome?>
        do {
            defer { instruments.finished(.write, since: start) }
            member = try await writer.writeInTurn { [self] connection in
                try writeMember(on: connection) { try $0.apply(single) }
            }
        }
        await writeMirrors(member.mirrors)
        if let applied = member.result { return applied }
        return try await writeAwaiting(transaction)
    }

    private func writeAwaiting<Result>(_ body: (SQLiteWriteTransaction) async throws -> Result) async throws -> Result {
        precondition(
            !Self.isWritingInThisTask(self),
            "Hangar: store.write called inside a write transaction of the same store (or file)")
        let start = try beginWrite()
        defer { instruments.finished(.write, since: start) }
        let member = try await Self.$writingStores.withValue(Self.writingStores.union([writer.lockID])) {
            try await Self.$asyncWrites.withValue(Self.asyncWrites.union([Self.taskWrite(writer.lockID)])) {
                try await writer.write { connection in try await writeMember(on: connection, body) }
            }
        }
        await writeMirrors(member.mirrors)
        return member.result
    }

    // MARK: The steps every write shares

    /// Checks that a write may start; returns when it did, for the write timer.
    private func beginWrite() throws(HangarError) -> ContinuousClock.Instant {
        try requireOpen()
        try requireWritable()
        return ContinuousClock.now
    }

    /// Runs `body` as a write transaction on `connection`, once the turn is the write's: what it returned, the
    /// mirror files it owes and its size, for its group.
    private func writeMember<Result>(
        on connection: SQLiteConnection, _ body: (SQLiteWriteTransaction) throws -> Result
    ) throws -> WriteMember<Result> {
        try requireOpen()
        let transaction = SQLiteWriteTransaction(connection: connection, store: self)
        defer { transaction.invalidate() }
        let result = try body(transaction)
        try transaction.finishChanges()
        return WriteMember(result, of: transaction)
    }

    /// ``writeMember(on:_:)`` for a body that may `await`.
    private func writeMember<Result>(
        on connection: SQLiteConnection, _ body: (SQLiteWriteTransaction) async throws -> Result
    ) async throws -> WriteMember<Result> {
        try requireOpen()
        let transaction = SQLiteWriteTransaction(connection: connection, store: self)
        defer { transaction.invalidate() }
        let result = try await body(transaction)
        try transaction.finishChanges()
        return WriteMember(result, of: transaction)
    }

    /// After a write group's commit: wakes the followers if it recorded changes and empties an overgrown log.
    static func committed(
        _ group: WriteGroup, on connection: SQLiteConnection, signal: ChangeSignal, instruments: StoreInstruments
    ) {
        if group.recordedChanges { signal.signal() }
        // Beside the write timer's count: writes per commit, what group commit saves.
        instruments.count("hangar_commits_total")
        connection.checkpointIfLogExceeds(logSizeLimit)
    }

    /// Twice the log SQLite's automatic checkpoints keep (1,000 pages of 4 KiB): beyond this, readers are
    /// starving them and the writer empties the log itself (``SQLiteConnection/checkpointIfLogExceeds(_:)``).
    static let logSizeLimit = 8 << 20

    // MARK: Writes inside writes

    @TaskLocal private static var writingStores: Set<ObjectIdentifier> = []

    /// Whether this thread or task is inside a write of `store`'s file.
    static func isWriting(_ store: SQLiteStore) -> Bool {
        writingStores.contains(store.writer.lockID)
    }

    /// The async writes under way in a task: its writer lock and the task. A task started inside a write
    /// inherits the task-locals but is another task, which waits for its turn rather than deadlocking.
    private struct TaskWrite: Hashable {
        let lock: ObjectIdentifier
        let task: Int?
    }

    @TaskLocal private static var asyncWrites: Set<TaskWrite> = []

    private static func taskWrite(_ lock: ObjectIdentifier) -> TaskWrite {
        TaskWrite(lock: lock, task: withUnsafeCurrentTask { $0?.hashValue })
    }

    /// Whether this task (not a task it started) is inside a write of `store`'s file: a blocking write, or
    /// an async one of this same task.
    static func isWritingInThisTask(_ store: SQLiteStore) -> Bool {
        asyncWrites.contains(taskWrite(store.writer.lockID))
            || (withUnsafeCurrentTask { $0 } == nil && isWriting(store))
    }
}

/// One write of a group: what its body returned, the mirror files it owes once committed, and its size.
private struct WriteMember<Result>: GroupMember {
    let result: Result
    let mirrors: [PendingMirror]
    let footprint: GroupFootprint

    init(_ result: Result, of transaction: SQLiteWriteTransaction) {
        self.result = result
        mirrors = transaction.pendingMirrors
        footprint = GroupFootprint(bytes: transaction.bytesWritten, recordedChanges: transaction.recordedChanges)
    }
}

extension WriteMember: Sendable where Result: Sendable {}
