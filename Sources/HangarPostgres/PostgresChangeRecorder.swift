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
        let sequence = last + Int64(noted.count)
        // The newest `maximumCount` kept: the boundary so far; the age limit is applied with the answer of the
        // statement below.
        var boundary = pruned
        if let maximumCount = retention.maximumCount {
            boundary = max(boundary, sequence - Int64(max(0, maximumCount)))
        }
        let cutoff = retention.maximumAge.map { Date().timeIntervalSince1970 - $0 }
        // Every change and the counter in one statement, which also answers the age limit's question about the
        // changes committed before (firstChangeNotOlderThan): one round trip, however many changes.
        var binds = PostgresBindings()
        binds.append(transactionID)
        binds.append(sequence)
        binds.append(noted.indices.map { last + 1 + Int64($0) })
        binds.append(noted.map(\.kind.rawValue))
        binds.append(noted.map(\.time.timeIntervalSince1970))
        binds.append(noted.map(\.collection))
        binds.append(noted.map(\.key))
        binds.append(noted.map { Int64($0.revision) })
        binds.append(noted.map { Int64($0.version.major) })
        binds.append(noted.map { Int64($0.version.minor) })
        binds.append(noted.map { $0.classTag ?? "" })
        binds.append(noted.map { $0.classTag != nil })
        binds.append(cutoff == nil ? nil : boundary)
        binds.append(cutoff)
        let firstOlderKept = try await transaction.scalar(
            statements.recordChangesAndAdvanceCounter, binds, as: Int64.self)
        written = (Int(last) + 1, Int(sequence), Int(transactionID))
        if let cutoff {
            // The first change after the boundary not older than the cutoff: one committed before (the
            // statement's answer: it does not see the changes it inserts), else the first of this transaction's.
            let firstNewKept = noted.indices.lazy.map { (last + 1 + Int64($0), self.noted[$0].time) }
                .first { $0.0 > boundary && $0.1.timeIntervalSince1970 >= cutoff }?.0
            boundary = max(boundary, (firstOlderKept ?? firstNewKept ?? sequence + 1) - 1)
        }
        guard boundary > pruned else { return }
        var prune = PostgresBindings()
        prune.append(boundary)
        try await transaction.execute(statements.pruneChanges, prune)
        try await transaction.execute(statements.setPrunedThrough, prune)
    }
}
