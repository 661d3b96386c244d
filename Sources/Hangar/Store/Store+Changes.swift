public import Foundation
import Synchronization

/// One committed change in a store's feed: a save, a delete or a restore of one document. It says what
/// changed, not the body: read the document for that.
public struct Change: Sendable, Hashable {
    /// What happened to the document.
    public enum Kind: String, Sendable, Hashable {
        /// A save (a new document, or a new revision).
        case save
        /// A delete: ``Change/revision`` is the revision deleted.
        case delete
        /// A kept earlier revision saved again as a new revision.
        case restore
    }

    /// The change's place in the store's feed: store-wide, from 1, without gaps or reuse, in commit order.
    public let sequence: Int
    /// The transaction that committed it (the sequence of its first change; in a store written before
    /// schema 4, a count): a transaction's changes have contiguous sequences and one id, ids grow.
    public let transaction: Int
    /// The document's collection.
    public let collection: String
    /// The document's key.
    public let key: String
    /// The revision saved (for a delete, the revision deleted).
    public let revision: Int
    /// A save, a delete or a restore.
    public let kind: Kind
    /// The document's format version as saved (for a delete, as it was).
    public let version: DocumentVersion
    /// The document's class tag, if it has one.
    public let classTag: String?
    /// When the change was written, inside its transaction.
    public let committedAt: Date

    /// A change as an engine read it.
    package init(
        sequence: Int, transaction: Int, collection: String, key: String, revision: Int, kind: Kind,
        version: DocumentVersion, classTag: String?, committedAt: Date
    ) {
        self.sequence = sequence
        self.transaction = transaction
        self.collection = collection
        self.key = key
        self.revision = revision
        self.kind = kind
        self.version = version
        self.classTag = classTag
        self.committedAt = committedAt
    }
}

extension ReadTransaction {
    /// The changes committed after `sequence` (0: from the start), oldest first, at most `limit`; only those
    /// of `collection` when given.
    ///
    /// - Throws: ``HangarError/changesTooOld`` when changes after `sequence` have been pruned
    ///   (``StoreConfiguration/changeRetention``): nothing is skipped silently.
    public func changes(since sequence: Int, in collection: String? = nil, limit: Int? = nil) throws(HangarError)
        -> [Change]
    {
        checkValid()
        let counter = try changeCounter()
        guard sequence >= counter.prunedThrough else {
            throw DocumentRules.changesTooOld(since: sequence, prunedThrough: counter.prunedThrough)
        }
        let limitValue = SQLiteValue.integer(Int64(limit.map { max(0, $0) } ?? -1))
        let rows: [Change?]
        if let collection {
            rows = try query(
                StoreSQL.changesOfCollectionSince, [.integer(Int64(sequence)), limitValue, .text(collection)],
                collection: collection, Self.change)
        } else {
            rows = try query(StoreSQL.changesSince, [.integer(Int64(sequence)), limitValue], Self.change)
        }
        return try rows.map { (row) throws(HangarError) -> Change in
            guard let row else { throw HangarError(.database, "The change feed holds a change of an unknown kind") }
            return row
        }
    }

    /// The sequence of the last change committed (0 when there has been none): follow from here to see only
    /// what comes next.
    public func lastChangeSequence() throws(HangarError) -> Int {
        checkValid()
        return try changeCounter().lastSequence
    }

    /// The feed's counter: the last sequence given and the last one pruned.
    private func changeCounter() throws(HangarError) -> (lastSequence: Int, prunedThrough: Int) {
        let row = try query(StoreSQL.changeCounter, []) { statement in
            (lastSequence: Int(statement.int64(at: 0)), prunedThrough: Int(statement.int64(at: 1)))
        }.first
        guard let row else { throw HangarError(.database, "The store's change counter is missing") }
        return row
    }

    /// Reads ``StoreSQL/changeColumns``; `nil` for a kind this code does not know.
    private static func change(_ statement: SQLiteStatement) -> Change? {
        guard let kind = Change.Kind(rawValue: statement.text(at: 5)) else { return nil }
        return Change(
            sequence: Int(statement.int64(at: 0)), transaction: Int(statement.int64(at: 1)),
            collection: statement.text(at: 2), key: statement.text(at: 3), revision: Int(statement.int64(at: 4)),
            kind: kind,
            version: DocumentVersion(major: Int(statement.int64(at: 6)), minor: Int(statement.int64(at: 7))),
            classTag: statement.optionalText(at: 8),
            committedAt: Date(timeIntervalSince1970: statement.double(at: 9)))
    }
}

extension Store {
    /// ``ReadTransaction/changes(since:in:limit:)`` in a read transaction of its own.
    public func changes(since sequence: Int, in collection: String? = nil, limit: Int? = nil) throws(HangarError)
        -> [Change]
    {
        do {
            return try read { try $0.changes(since: sequence, in: collection, limit: limit) }
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Every change after `sequence` (of `collection` only, when given), then each one as it commits, until
    /// the task iterating it is cancelled.
    ///
    /// A commit through this store wakes it at once; one by another process (or another `Store` on the file)
    /// is seen within about ``StoreConfiguration/followPollInterval``. To resume, follow again after the last sequence seen.
    /// Iterating throws ``HangarError/changesTooOld`` when changes after the last sequence seen were pruned.
    public func follow(after sequence: Int, in collection: String? = nil) -> ChangeFeed {
        ChangeFeed(reading: self, after: sequence, collection: collection, signal: changeSignal)
    }
}

/// The changes a store commits, as they commit (``DocumentStore/follow(after:in:)``). Iterating it waits for
/// the next change; cancelling the task ends it.
public struct ChangeFeed: AsyncSequence, Sendable {
    /// A feed yields changes.
    public typealias Element = Change

    /// Reads the changes after a sequence (of a collection, when given), at most a limit, and the last
    /// sequence committed, in one transaction.
    package typealias Reader = @Sendable (_ after: Int, _ collection: String?, _ limit: Int) async throws -> Batch

    let after: Int
    let collection: String?
    let signal: ChangeSignal
    let pollInterval: Duration
    let reader: Reader

    /// A feed that reads with `reader`, waking when `signal` is given or every `pollInterval`.
    package init(
        after: Int, collection: String?, signal: ChangeSignal, pollInterval: Duration, reader: @escaping Reader
    ) {
        self.after = after
        self.collection = collection
        self.signal = signal
        self.pollInterval = pollInterval
        self.reader = reader
    }

    /// A feed that reads `store`'s changes in read transactions of their own, woken by `signal` (which the
    /// store gives when it commits changes) or every ``StoreConfiguration/followPollInterval``.
    package init<Store: DocumentStore>(reading store: Store, after: Int, collection: String?, signal: ChangeSignal) {
        self.init(
            after: after, collection: collection, signal: signal, pollInterval: store.configuration.followPollInterval
        ) { last, collection, limit in
            try await store.read { transaction in
                Batch(
                    changes: try await transaction.changes(since: last, in: collection, limit: limit),
                    lastSequence: try await transaction.lastChangeSequence())
            }
        }
    }

    /// Starts reading after the feed's sequence.
    public func makeAsyncIterator() -> Iterator {
        Iterator(feed: self, last: after)
    }

    /// Changes read in one transaction, and the last sequence committed as of it.
    package struct Batch: Sendable {
        let changes: [Change]
        let lastSequence: Int

        package init(changes: [Change], lastSequence: Int) {
            self.changes = changes
            self.lastSequence = lastSequence
        }
    }

    /// Reads the feed a batch at a time, waiting when it has caught up.
    public struct Iterator: AsyncIteratorProtocol {
        let feed: ChangeFeed
        /// Every change up to here has been read (or is in ``buffer``).
        var last: Int
        var buffer: [Change] = []
        var index = 0

        /// The next change, waiting for one to commit; `nil` once the task is cancelled.
        public mutating func next() async throws -> Change? {
            while true {
                if index < buffer.count {
                    index += 1
                    return buffer[index - 1]
                }
                if Task.isCancelled { return nil }
                let generation = feed.signal.generation
                let batch: Batch
                do {
                    batch = try await feed.reader(last, feed.collection, Iterator.batchSize)
                } catch is CancellationError {
                    return nil
                }
                buffer = batch.changes
                index = 0
                if let final = batch.changes.last { last = final.sequence }
                // Caught up: everything to the last commit has been seen, of this collection or not.
                if batch.changes.count < Iterator.batchSize { last = Swift.max(last, batch.lastSequence) }
                if batch.changes.isEmpty {
                    await feed.signal.wait(after: generation, timeout: feed.pollInterval)
                }
            }
        }

        static let batchSize = 256
    }
}

/// Wakes the followers of a store when it commits changes; they also wake after a timeout, to see commits
/// made through other connections.
package final class ChangeSignal: Sendable {
    private struct State {
        var generation = 0
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    /// Counts the signals given.
    package var generation: Int { state.withLock { $0.generation } }

    /// Wakes every waiter.
    package func signal() {
        let waiters = state.withLock { state in
            state.generation += 1
            let waiters = state.waiters
            state.waiters = [:]
            return waiters
        }
        for waiter in waiters.values { waiter.resume() }
    }

    /// Returns after the next signal (at once if one came since `generation`), after `timeout`, or once the
    /// task is cancelled.
    package func wait(after generation: Int, timeout: Duration) async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    guard state.generation == generation, !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now {
                    continuation.resume()
                } else {
                    Task { [self] in
                        try? await Task.sleep(for: timeout)
                        wake(id)
                    }
                }
            }
        } onCancel: {
            wake(id)
        }
    }

    private func wake(_ id: Int) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.resume()
    }
}
