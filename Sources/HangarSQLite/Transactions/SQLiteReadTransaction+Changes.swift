import Foundation
import Hangar

extension SQLiteReadTransaction {
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
                SQLiteSQL.changesOfCollectionSince, [.integer(Int64(sequence)), limitValue, .text(collection)],
                collection: collection, Self.change)
        } else {
            rows = try query(SQLiteSQL.changesSince, [.integer(Int64(sequence)), limitValue], Self.change)
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
        let row = try query(SQLiteSQL.changeCounter, []) { statement in
            (lastSequence: Int(statement.int64(at: 0)), prunedThrough: Int(statement.int64(at: 1)))
        }.first
        guard let row else { throw HangarError(.database, "The store's change counter is missing") }
        return row
    }

    /// Reads ``SQLiteSQL/changeColumns``; `nil` for a kind this code does not know.
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

extension SQLiteStore {
    /// Every change after `sequence` (of `collection` only, when given), then each one as it commits, until
    /// the task iterating it is cancelled.
    ///
    /// A commit through this store wakes it at once; one by another process (or another `SQLiteStore` on the file)
    /// is seen within about ``StoreConfiguration/followPollInterval``. To resume, follow again after the last sequence seen.
    /// Iterating throws ``HangarError/changesTooOld`` when changes after the last sequence seen were pruned.
    public func follow(after sequence: Int, in collection: String? = nil) -> ChangeFeed {
        ChangeFeed(reading: self, after: sequence, collection: collection, signal: changeSignal)
    }
}
