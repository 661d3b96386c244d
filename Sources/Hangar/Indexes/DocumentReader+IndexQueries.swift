/// An index a store has built: its name and the fingerprint of its definition (``IndexDefinition/fingerprint``),
/// which tells a store opened without the app's definitions how to read the index's values.
@_spi(Engine) public struct BuiltIndex: Sendable {
    public let name: String
    public let fingerprint: String

    public init(name: String, fingerprint: String) {
        self.name = name
        self.fingerprint = fingerprint
    }

    /// The number of components of a compound index; `nil` for an index of single values.
    public var components: Int? { IndexDefinition.components(fingerprint: fingerprint) }
}

// Index queries, on every engine: pages, counts and bounds, each answered from the index alone.
extension DocumentReader {
    /// One page of `query`: at most ``IndexQuery/limit`` keys in the query's order, and the cursor of the next page
    /// when more follow. One index range scan (``IndexScan``) of `limit + 1` entries.
    ///
    /// Throws ``HangarError/Code/notFound`` for an index the store has not built (naming those it has),
    /// ``HangarError/Code/invalidQuery`` for a query the index cannot answer, ``HangarError/Code/invalidCursor``
    /// for a cursor that is not one of this query's. Paging with the cursors, a document that is not written
    /// meanwhile is listed exactly once, in order, whatever else is written between the pages.
    public func page(_ query: IndexQuery) async throws(HangarError) -> IndexPage {
        try await page(query, documents: false)
    }

    /// One page of `query` (``page(_:)``), with the documents of its keys when `documents` is true, read in the
    /// same transaction.
    public func page(_ query: IndexQuery, documents: Bool) async throws(HangarError) -> IndexPage {
        let scan = try await scan(of: query)
        let entries = try await indexEntries(scan)
        let limit = scan.limit - 1
        let listed = entries.prefix(limit)
        let next =
            entries.count > limit
            ? listed.last.map { IndexCursor(scope: scan.scope, value: $0.value, key: $0.key) } : nil
        var stored: [StoredDocument] = []
        if documents {
            for entry in listed {
                guard let document = try await document(in: query.collection, key: entry.key) else {
                    throw HangarError(
                        .database, "Index \(query.index) lists a key with no document", collection: query.collection,
                        key: entry.key)
                }
                stored.append(document)
            }
        }
        return IndexPage(keys: listed.map(\.key), documents: stored, next: next)
    }

    /// How many documents have a value in `query`'s range (its cursor and limit are not used), counted in the index.
    public func count(_ query: IndexQuery) async throws(HangarError) -> Int {
        var whole = query
        whole.after = nil
        whole.limit = 1
        return try await indexKeyCount(try await scan(of: whole))
    }

    /// The smallest and largest values in `query`'s range (its cursor, order and limit are not used), read from the
    /// index's two ends; `nil` when the range holds none. Compound values come back as arrays; numbers as
    /// integers when whole and in range (an index stores `3.0` as `3`).
    public func bounds(_ query: IndexQuery) async throws(HangarError) -> IndexBounds? {
        var whole = query
        whole.after = nil
        whole.limit = 1
        whole.order = .ascending
        let built = try await builtIndex(query.index, in: query.collection)
        let scan = try IndexScan.plan(whole, components: built.components)
        guard let first = try await indexEntries(scan.with(after: nil, limit: 1)).first,
            let last = try await indexEntries(scan.with(after: nil, limit: 1, descending: true)).first
        else { return nil }
        let decode = built.components == nil ? IndexValue.decoded : IndexValue.decodedCompound
        guard let smallest = decode(first.value), let largest = decode(last.value) else {
            throw HangarError(
                .corrupt, "Index \(query.index) holds a value that does not read", collection: query.collection)
        }
        return IndexBounds(smallest: smallest, largest: largest)
    }

    /// The names of the indexes the store has built for `collection`, in byte order: the ones ``page(_:)``
    /// answers, as the store recorded them, so a tool opened without the app's definitions can list and query them.
    public func indexNames(in collection: String) async throws(HangarError) -> [String] {
        try await builtIndexes(in: collection).map(\.name)
    }

    /// The scan of `query`, on the index as the store built it. A query with an ``IndexQuery/owner`` needs the
    /// owners index (``hasOwnersIndex()``): ``HangarError/Code/notFound`` without it.
    func scan(of query: IndexQuery) async throws(HangarError) -> IndexScan {
        if query.owner != nil, try await !hasOwnersIndex() {
            throw HangarError(
                .notFound, "The owners index is not built (the store was opened read-only before it kept one)",
                collection: query.collection)
        }
        return try IndexScan.plan(
            query, components: try await builtIndex(query.index, in: query.collection).components)
    }

    /// The index `name` of `collection` as built, by its name's bytes; ``HangarError/Code/notFound`` naming the
    /// built ones otherwise.
    private func builtIndex(_ name: String, in collection: String) async throws(HangarError) -> BuiltIndex {
        let built = try await builtIndexes(in: collection)
        if let found = built.first(where: { $0.name.hasSameBytes(as: name) }) { return found }
        let names = built.isEmpty ? "none is" : "the built ones are " + built.map(\.name).joined(separator: ", ")
        throw HangarError(
            .notFound, "No index \(name) is built (declare it in the store's configuration); \(names)",
            collection: collection)
    }
}
