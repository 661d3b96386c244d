import Foundation

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

    /// Reads the feed a batch at a time, waiting when it has caught up. It may be handed to another task between
    /// elements.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
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
