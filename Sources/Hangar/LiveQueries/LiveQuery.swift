import Logging

/// One element of a live query (``DocumentStore/observe(_:)``): the query's page as of a change of the feed, and,
/// after the first element, what changed since the element before.
public struct LiveQueryResult: Sendable {
    /// The change sequence the page is as of: every change up to it, and none after, is reflected.
    public let sequence: Int
    /// The page's keys, in the query's order: at most ``IndexQuery/limit``.
    public let keys: [String]
    /// What changed since the previous element; `nil` for the first.
    public let changes: LiveQueryChanges?

    package init(sequence: Int, keys: [String], changes: LiveQueryChanges?) {
        self.sequence = sequence
        self.keys = keys
        self.changes = changes
    }
}

/// What changed in a live query's page from one element to the next. A key is in at most one of ``added``,
/// ``removed``, and ``moved`` or ``revised`` (a key both moved and revised is in both of those).
public struct LiveQueryChanges: Sendable {
    /// Keys now in the page that were not, in the page's order.
    public let added: [String]
    /// Keys no longer in the page, in the previous page's order.
    public let removed: [String]
    /// Keys in both pages whose place among the keys of both changed (the fewest such keys that explain the new
    /// order), in the page's order.
    public let moved: [String]
    /// Keys in both pages whose document was written (saved or restored) since the previous element, in the page's
    /// order.
    public let revised: [String]

    /// Whether nothing changed.
    public var isEmpty: Bool { added.isEmpty && removed.isEmpty && moved.isEmpty && revised.isEmpty }

    package init(added: [String], removed: [String], moved: [String], revised: [String]) {
        self.added = added
        self.removed = removed
        self.moved = moved
        self.revised = revised
    }
}

extension DocumentStore {
    /// A live query: the first page of `query` now, then the page again each time a committed change alters it.
    ///
    /// The first element is the page as of the change it was read with (``LiveQueryResult/sequence``); each later
    /// one is the whole current page, the sequence it is as of, and what changed (``LiveQueryChanges``). It follows
    /// the change feed (``follow(after:in:)``) of the query's collection, so it sees what the feed's followers see:
    /// commits through this store at once, other processes' and other instances' as the engine's followers do.
    /// A change re-reads the page only when it can alter it: its document is in the page, or the document's new
    /// values fall in the query's range before the page's end; any other change costs one lookup of the document's
    /// entries in the index and a comparison. Changes that leave the page as it was give no element.
    ///
    /// Cancelling the task iterating it ends it (`next()` answers `nil`). It throws what reading the page throws
    /// (an index the store has not built, an invalid query or cursor) and what the feed throws
    /// (``HangarError/changesTooOld``).
    public func observe(_ query: IndexQuery) -> LiveQuery<Self> {
        LiveQuery(store: self, query: query, filter: nil)
    }

    /// A live query of the documents `isIncluded` lets through (``observe(_:)``): its page holds the first
    /// ``IndexQuery/limit`` keys of the query's range that `isIncluded` accepts, as `page` holds the first keys of
    /// the range; the filter runs in the read transaction of each page read, for each key read.
    public func observe(
        _ query: IndexQuery, including isIncluded: @escaping LiveQuery<Self>.Filter
    ) -> LiveQuery<Self> {
        LiveQuery(store: self, query: query, filter: isIncluded)
    }
}

/// The elements of a live query (``DocumentStore/observe(_:)``), as they come.
public struct LiveQuery<Store: DocumentStore>: AsyncSequence, Sendable {
    /// Each element is a page and what changed.
    public typealias Element = LiveQueryResult
    /// Whether the page may hold the document at `key`, read in `reader` (the page's read transaction).
    public typealias Filter = @Sendable (_ key: String, _ reader: Store.Reader) async throws -> Bool

    let store: Store
    let query: IndexQuery
    let filter: Filter?

    /// Reads the first page when first asked for an element.
    public func makeAsyncIterator() -> Iterator {
        Iterator(live: self)
    }

    /// Reads the first page, then follows the feed, one element per change of the page. It may be handed to another
    /// task between elements (read the first page before answering, stream the rest).
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let live: LiveQuery
        var state: LiveQueryState?
        var feed: ChangeFeed.Iterator?

        /// The next page: the first at once, later ones when a change alters the page; `nil` once the task is
        /// cancelled.
        public mutating func next() async throws -> LiveQueryResult? {
            do {
                if let element = try await nextElement() { return element }
            } catch {
                guard Task.isCancelled else {
                    log("Live query failed", error: error)
                    throw error
                }
            }
            log("Live query ended")
            return nil
        }

        /// A debug record of the query's start and end in the store's log (collection and index, never values).
        private func log(_ message: Logger.Message, error: (any Error)? = nil) {
            var metadata: Logger.Metadata = [
                "collection": "\(live.query.collection)", "index": "\(live.query.index)",
            ]
            if let error { metadata["error"] = "\(error)" }
            live.store.configuration.logger.debug(message, metadata: metadata)
        }

        private mutating func nextElement() async throws -> LiveQueryResult? {
            guard var state else {
                let first = try await LiveQueryState.first(live)
                self.state = first
                feed = live.store.follow(after: first.sequence, in: live.query.collection).makeAsyncIterator()
                log("Live query opened")
                return LiveQueryResult(sequence: first.sequence, keys: first.keys, changes: nil)
            }
            while let change = try await feed?.next() {
                // Already in the page read last (its read came after the change committed).
                guard change.sequence > state.sequence else { continue }
                state.noteChange(change)
                guard try await state.isTouched(by: change, live) else { continue }
                let changes = try await state.reread(after: change.sequence, live)
                self.state = state
                if let changes { return LiveQueryResult(sequence: state.sequence, keys: state.keys, changes: changes) }
            }
            self.state = state
            return nil
        }
    }
}
