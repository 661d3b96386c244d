package import Foundation
package import Hangar
import PostgresNIO

/// Gives a write transaction's changes their feed sequences: store-wide, from 1, without gaps, in commit order,
/// as the SQLite store does.
///
/// The sequence comes from the one-row `change_counter`, never from a `SERIAL` (a sequence's numbers are not
/// transactional: a rollback would leave a gap, and numbers would be handed out in start order, not commit
/// order). A transaction's saves and deletes are noted here as they happen (``record(_:collection:key:revision:version:classTag:at:)``,
/// no statement); ``finish(retention:in:)``, run by the engine just before `COMMIT`, locks the counter
/// (`SELECT … FOR UPDATE`), writes the noted changes with the next numbers, and writes the counter back. So:
///
/// - A rollback writes nothing, and a failed `COMMIT` takes its numbers back with the row: no gap.
/// - Another committing writer waits on the lock until this one commits or rolls back, and only then reads the
///   counter: sequences are given in commit order, and a reader never sees sequence n + 1 committed before n.
/// - The lock is held only from the changes' insertion to the commit, and its holder waits for no other lock:
///   writers on different documents run at once until then, and cannot deadlock on it.
///
/// The price of gap-free: commits that record changes take turns for that moment.
package final class PostgresChangeRecorder {
    /// A change noted, to be written at commit.
    private struct Noted {
        let kind: Change.Kind
        let collection: String
        let key: String
        let revision: Int
        let version: DocumentVersion
        let classTag: String?
        let time: Date
    }

    private var noted: [Noted] = []
    private var written: (first: Int, last: Int, transaction: Int)?

    /// Whether this transaction recorded a change.
    package var hasRecorded: Bool { !noted.isEmpty }
    /// This transaction's id in the feed, once ``finish(retention:in:)`` wrote its changes.
    package var transactionID: Int? { written?.transaction }
    /// The sequences given to this transaction's changes, once ``finish(retention:in:)`` wrote them.
    package var sequences: ClosedRange<Int>? { written.map { $0.first...$0.last } }

    /// Notes a change of `key` in `collection`, now at `revision` and `version` (for a delete, the revision and
    /// version deleted); it gets its sequence when the transaction commits.
    package func record(
        _ kind: Change.Kind, collection: String, key: String, revision: Int, version: DocumentVersion,
        classTag: String?, at time: Date = Date()
    ) {
        noted.append(
            Noted(
                kind: kind, collection: collection, key: key, revision: revision, version: version,
                classTag: classTag, time: time))
    }

    /// Locks the counter, writes the noted changes with the next sequences, writes the counter back and prunes
    /// what `retention` no longer keeps; the engine runs it last, just before `COMMIT`. A transaction that
    /// recorded nothing does nothing here.
    package func finish(retention: ChangeRetention, in transaction: PostgresTransaction) async throws(HangarError) {
        guard !noted.isEmpty else { return }
        let statements = transaction.sql.changes
        guard let row = try await transaction.query(statements.lockCounter).first else {
            throw HangarError(.database, "The store's change counter is missing", sql: statements.lockCounter)
        }
        let (last, _, pruned) = try transaction.decode(row, statement: statements.lockCounter) {
            try $0.decode((Int64, Int64, Int64).self)
        }
        // As on SQLite: a transaction's id is the sequence of its first change.
        let transactionID = last + 1
        var sequence = last
        for change in noted {
            sequence += 1
            var binds = PostgresBindings()
            binds.append(sequence)
            binds.append(transactionID)
            binds.append(change.kind.rawValue)
            binds.append(change.time.timeIntervalSince1970)
            binds.append(change.collection)
            binds.append(change.key)
            binds.append(Int64(change.revision))
            binds.append(Int64(change.version.major))
            binds.append(Int64(change.version.minor))
            binds.append(change.classTag)
            try await transaction.execute(statements.recordChangeValues, binds)
        }
        var counter = PostgresBindings()
        counter.append(sequence)
        counter.append(transactionID)
        try await transaction.execute(statements.advanceCounter, counter)
        written = (Int(last) + 1, Int(sequence), Int(transactionID))
        let boundary = try await pruneBoundary(
            retention: retention, lastSequence: sequence, prunedThrough: pruned, in: transaction)
        guard boundary > pruned else { return }
        var prune = PostgresBindings()
        prune.append(boundary)
        try await transaction.execute(statements.pruneChanges, prune)
        try await transaction.execute(statements.setPrunedThrough, prune)
    }

    /// The last sequence `retention` lets go: as the SQLite store computes it (the newest `maximumCount`
    /// kept, none older than `maximumAge`, never moving back).
    private func pruneBoundary(
        retention: ChangeRetention, lastSequence: Int64, prunedThrough: Int64, in transaction: PostgresTransaction
    ) async throws(HangarError) -> Int64 {
        var boundary = prunedThrough
        if let maximumCount = retention.maximumCount {
            boundary = max(boundary, lastSequence - Int64(max(0, maximumCount)))
        }
        if let maximumAge = retention.maximumAge {
            let cutoff = Date().timeIntervalSince1970 - maximumAge
            var binds = PostgresBindings()
            binds.append(boundary)
            binds.append(cutoff)
            let firstKept = try await transaction.scalar(
                transaction.sql.changes.firstChangeNotOlderThan, binds, as: Int64.self)
            boundary = max(boundary, (firstKept ?? lastSequence + 1) - 1)
        }
        return boundary
    }
}
