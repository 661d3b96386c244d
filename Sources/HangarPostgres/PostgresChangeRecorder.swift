package import Foundation
package import Hangar
import PostgresNIO

/// Gives a write transaction's changes their feed sequences: store-wide, from 1, without gaps, in commit order,
/// as the SQLite store does.
///
/// The sequence comes from the one-row `change_counter`, never from a `SERIAL` (a sequence's numbers are not
/// transactional: a rollback would leave a gap, and numbers would be handed out in start order, not commit
/// order). The first change of a transaction reads the counter with `SELECT … FOR UPDATE`, which locks the row
/// until the transaction ends; its changes then take the next numbers, counted here, and ``finish(retention:in:)``
/// writes the counter back just before `COMMIT`. So:
///
/// - A rollback takes its numbers back with the row: no gap.
/// - Another writer that records a change waits on the lock until this one commits or rolls back, and only then
///   reads the counter: sequences are given in commit order, and a reader never sees sequence n + 1 committed
///   before n. (At REPEATABLE READ or SERIALIZABLE, the waiter fails with 40001 instead and the engine runs it
///   again.)
///
/// The price of gap-free: writers that record changes are serialized from their first change to their commit
/// (their work before it, and every reader, still runs concurrently). Take the lock as late as possible: record
/// the changes at the end of the transaction's writes.
package final class PostgresChangeRecorder {
    /// The counter as this transaction has advanced it.
    private struct State {
        var lastSequence: Int64
        let transaction: Int64
        let prunedThrough: Int64
    }

    private var state: State?

    /// Whether this transaction recorded a change.
    package var hasRecorded: Bool { state != nil }
    /// This transaction's id in the feed, once it recorded a change.
    package var transactionID: Int? { state.map { Int($0.transaction) } }

    /// Records the current row of `key` in `collection` (for a delete, the revision being deleted: record before
    /// deleting) as the next change, of `kind`, and returns its sequence. The first call locks the counter.
    ///
    /// - Throws: ``HangarError`` when the statement fails, or ``HangarError/Code/database`` when there is no
    ///   such document (nothing is recorded, so nothing is skipped).
    @discardableResult
    package func record(
        _ kind: Change.Kind, collection: String, key: String, at time: Date = Date(),
        in transaction: PostgresTransaction
    ) async throws(HangarError) -> Int {
        let current: State
        if let state {
            current = state
        } else {
            current = try await lockCounter(in: transaction)
        }
        let sequence = current.lastSequence + 1
        var binds = PostgresBindings()
        binds.append(sequence)
        binds.append(current.transaction)
        binds.append(kind.rawValue)
        binds.append(time.timeIntervalSince1970)
        binds.append(collection)
        binds.append(key)
        let statement = transaction.sql.changes.recordChange + " RETURNING sequence"
        guard try await !transaction.query(statement, binds).isEmpty else {
            throw HangarError(
                .database, "The change cannot be recorded: the document is not stored", collection: collection,
                key: key, sql: statement)
        }
        var next = current
        next.lastSequence = sequence
        state = next
        return Int(sequence)
    }

    /// Locks the counter row and reads it; this transaction's id is the last one plus 1.
    private func lockCounter(in transaction: PostgresTransaction) async throws(HangarError) -> State {
        let statement = transaction.sql.changes.lockCounter
        guard let row = try await transaction.query(statement).first else {
            throw HangarError(.database, "The store's change counter is missing", sql: statement)
        }
        let (last, lastTransaction, pruned) = try transaction.decode(row, statement: statement) {
            try $0.decode((Int64, Int64, Int64).self)
        }
        return State(lastSequence: last, transaction: lastTransaction + 1, prunedThrough: pruned)
    }

    /// Writes the counter back and prunes what `retention` no longer keeps; the engine runs it last, just
    /// before `COMMIT`. A transaction that recorded nothing does nothing here.
    package func finish(retention: ChangeRetention, in transaction: PostgresTransaction) async throws(HangarError) {
        guard let state else { return }
        let statements = transaction.sql.changes
        var binds = PostgresBindings()
        binds.append(state.lastSequence)
        binds.append(state.transaction)
        try await transaction.execute(statements.advanceCounter, binds)
        let boundary = try await pruneBoundary(retention: retention, state: state, in: transaction)
        guard boundary > state.prunedThrough else { return }
        var prune = PostgresBindings()
        prune.append(boundary)
        try await transaction.execute(statements.pruneChanges, prune)
        try await transaction.execute(statements.setPrunedThrough, prune)
    }

    /// The last sequence `retention` lets go: as the SQLite store computes it (the newest `maximumCount`
    /// kept, none older than `maximumAge`, never moving back).
    private func pruneBoundary(retention: ChangeRetention, state: State, in transaction: PostgresTransaction)
        async throws(HangarError) -> Int64
    {
        var boundary = state.prunedThrough
        if let maximumCount = retention.maximumCount {
            boundary = max(boundary, state.lastSequence - Int64(max(0, maximumCount)))
        }
        if let maximumAge = retention.maximumAge {
            let cutoff = Date().timeIntervalSince1970 - maximumAge
            var binds = PostgresBindings()
            binds.append(boundary)
            binds.append(cutoff)
            let firstKept = try await transaction.scalar(
                transaction.sql.changes.firstChangeNotOlderThan, binds, as: Int64.self)
            boundary = max(boundary, (firstKept ?? state.lastSequence + 1) - 1)
        }
        return boundary
    }
}
