/// What a live query holds between elements: its scan, the page as last read with each key's position (value and
/// key), the sequence the page is as of, and the keys of the page written since the element before.
struct LiveQueryState: Sendable {
    let scan: IndexScan
    let limit: Int
    private(set) var entries: [IndexScan.Entry]
    private(set) var sequence: Int
    private var members: Set<ExactString>
    /// Keys of the page that changes after the last element wrote (not deletes: those leave the page).
    private var written: Set<ExactString> = []

    private init(scan: IndexScan, limit: Int, entries: [IndexScan.Entry], sequence: Int) {
        self.scan = scan
        self.limit = limit
        self.entries = entries
        self.sequence = sequence
        self.members = Set(entries.map { ExactString($0.key) })
    }

    /// The page's keys, in order.
    var keys: [String] { entries.map(\.key) }

    /// The first page of `live`'s query and the sequence it is as of, in one read transaction.
    static func first<Store>(_ live: LiveQuery<Store>) async throws -> LiveQueryState {
        let query = live.query
        let filter = live.filter
        return try await live.store.read { reader in
            let scan = try await reader.scan(of: query)
            let entries = try await page(scan, limit: query.limit, filter: filter, reader)
            return LiveQueryState(
                scan: scan, limit: query.limit, entries: entries, sequence: try await reader.lastChangeSequence())
        }
    }

    /// The first `limit` entries of `scan` (from its position) that `filter` accepts.
    static func page<Reader: DocumentReader>(
        _ scan: IndexScan, limit: Int, filter: (@Sendable (String, Reader) async throws -> Bool)?, _ reader: Reader
    ) async throws -> [IndexScan.Entry] {
        guard let filter else { return try await reader.indexEntries(scan.with(after: scan.after, limit: limit)) }
        var found: [IndexScan.Entry] = []
        var after = scan.after
        while found.count < limit {
            let wanted = limit - found.count
            let batch = try await reader.indexEntries(scan.with(after: after, limit: wanted))
            for entry in batch where try await filter(entry.key, reader) { found.append(entry) }
            guard batch.count == wanted, let last = batch.last else { break }
            after = last
        }
        return found
    }

    /// Remembers that `change` wrote a key of the page (for ``LiveQueryChanges/revised``).
    mutating func noteChange(_ change: Change) {
        let key = ExactString(change.key)
        if change.kind != .delete, members.contains(key) { written.insert(key) }
    }

    /// Whether `change` can alter the page: its key is in the page, or its document's first value in the query's
    /// order (now) is in the range, after the query's cursor, and before the page's last entry when the page is full.
    /// A key outside the page costs one read of its entries in the index; a delete of one, nothing.
    func isTouched<Store>(by change: Change, _ live: LiveQuery<Store>) async throws -> Bool {
        if members.contains(ExactString(change.key)) { return true }
        if change.kind == .delete { return false }
        let keyScan = scan.entries(ofKey: change.key)
        let values = try await live.store.read { try await $0.indexEntries(keyScan) }
        let ordered = scan.descending ? Array(values.reversed()) : values
        guard
            let position = ordered.first(where: { entry in
                scan.contains(entry.value) && (scan.after.map { precedes($0, entry) } ?? true)
            })
        else { return false }
        guard entries.count >= limit, let last = entries.last else { return true }
        return precedes(position, last)
    }

    /// Whether `first` comes before `second` in the scan's order (by value, then by key's bytes).
    func precedes(_ first: IndexScan.Entry, _ second: IndexScan.Entry) -> Bool {
        let ascending: Bool
        if first.value.elementsEqual(second.value) {
            ascending = first.key.utf8.lexicographicallyPrecedes(second.key.utf8)
            if first.key.hasSameBytes(as: second.key) { return false }
        } else {
            ascending = first.value.lexicographicallyPrecedes(second.value)
        }
        return ascending != scan.descending
    }

    /// Reads the page again, with the sequence it is as of and the keys of the page written after `seen` (the feed's
    /// last change read); what changed, or `nil` when the page is as it was.
    mutating func reread<Store>(after seen: Int, _ live: LiveQuery<Store>) async throws -> LiveQueryChanges? {
        let (scan, limit, filter, collection) = (self.scan, self.limit, live.filter, live.query.collection)
        let (entries, sequence, later) = try await live.store.read { reader in
            (
                try await Self.page(scan, limit: limit, filter: filter, reader),
                try await reader.lastChangeSequence(),
                try await reader.changes(since: seen, in: collection, limit: nil)
            )
        }
        for change in later { noteChange(change) }
        let changes = LiveQueryDiff.changes(from: self.entries.map(\.key), to: entries.map(\.key), written: written)
        self.entries = entries
        self.sequence = sequence
        members = Set(entries.map { ExactString($0.key) })
        written = []
        return changes.isEmpty ? nil : changes
    }
}
