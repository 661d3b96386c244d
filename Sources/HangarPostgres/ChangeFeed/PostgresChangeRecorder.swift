package import Foundation
package import Hangar
import PostgresNIO

/// Gives a write transaction's changes their feed sequences: store-wide, from 1, without gaps, every committed
/// change exactly once, a transaction's changes together, and a transaction after every one it read or overwrote.
///
/// Commits never wait for each other's numbering (the `Engines` article has the proof):
///
/// 1. A transaction's saves and deletes are noted here as they happen (``record(_:collection:key:revision:version:classTag:at:)``,
///    no statement).
/// 2. ``finish(retention:in:)``, its last statement before `COMMIT`, writes them to `pending_changes` under a
///    ticket drawn then from the sequence `change_tickets`. If nobody holds the numbering lock, it takes it and
///    numbers every pending change it sees, its own included, and holds the lock to its `COMMIT` (one writer
///    alone pays nothing more). Otherwise it leaves them pending, without waiting.
/// 3. After `COMMIT`, changes left pending are numbered by ``number(ticket:retention:in:)`` (`number_changes`), in
///    a transaction of its own: unless another caller numbered them already, it waits for the numbering lock,
///    moves every committed pending change into `changes` with the next sequences (by ticket, then order in the
///    transaction), advances the counter, prunes, and notifies the store's channel. Numberings take turns up to
///    their own commit, so a reader sees sequences 1…n for some n, and later ones only above n.
///
/// A numbering lost (the connection dropped after `COMMIT`) leaves the changes pending: the next numbering, by
/// any writer or follower of the store, numbers them.
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
    private var drawn: Int64?

    /// Whether this transaction recorded a change.
    package var hasRecorded: Bool { !noted.isEmpty }
    /// The ticket this transaction's changes are pending under, once ``finish(retention:in:)`` wrote them and
    /// left them for numbering after `COMMIT`; `nil` when it numbered them itself (or recorded nothing).
    package var ticket: Int64? { drawn }

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

    /// Writes the noted changes to `pending_changes` under a new ticket, in one statement (`note_changes`), and
    /// numbers them there when nobody else is numbering (then it holds the numbering lock to `COMMIT`, and
    /// nothing is left to do after it); the engine runs it last, just before `COMMIT` (the ticket must be drawn
    /// after every read and lock of the transaction: that is what orders a transaction after the ones it read or
    /// overwrote). A transaction that recorded nothing does nothing here.
    package func finish(retention: ChangeRetention, in transaction: PostgresTransaction) async throws(HangarError) {
        guard !noted.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(noted.map(\.kind.rawValue))
        binds.append(noted.map(\.time.timeIntervalSince1970))
        binds.append(noted.map(\.collection))
        binds.append(noted.map(\.key))
        binds.append(noted.map { Int64($0.revision) })
        binds.append(noted.map { Int64($0.version.major) })
        binds.append(noted.map { Int64($0.version.minor) })
        binds.append(noted.map { $0.classTag ?? "" })
        binds.append(noted.map { $0.classTag != nil })
        Self.appendRetention(retention, to: &binds)
        drawn = try await transaction.scalar(transaction.sql.changes.noteChanges, binds, as: Int64.self)
    }

    /// The retention's two parameters: the most changes kept, the oldest time kept (NULL: no limit).
    private static func appendRetention(_ retention: ChangeRetention, to binds: inout PostgresBindings) {
        binds.append(retention.maximumCount.map { Int64($0) })
        binds.append(retention.maximumAge.map { Date().timeIntervalSince1970 - $0 })
    }

    /// Numbers the committed pending changes, unless those of `ticket` (any, for `nil`) were numbered already,
    /// pruning what `retention` no longer keeps; returns the last sequence, or `nil` when there was nothing to
    /// number. `transaction` is a single statement of its own (``PostgresTransactionOptions/singleStatement``).
    @discardableResult
    package static func number(ticket: Int64?, retention: ChangeRetention, in transaction: PostgresTransaction)
        async throws(HangarError) -> Int?
    {
        var binds = PostgresBindings()
        binds.append(ticket)
        appendRetention(retention, to: &binds)
        return try await transaction.scalar(transaction.sql.changes.numberChanges, binds, as: Int64.self).map {
            Int($0)
        }
    }
}
