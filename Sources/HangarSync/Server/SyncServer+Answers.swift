public import Foundation
public import Hangar

extension SyncServer {
    /// Forgets the remembered answers (`_sync.mutations`: applied mutations and idempotent `PUT`s) written
    /// before `date`, oldest first, at most `limit` of them; returns how many it forgot.
    ///
    /// An answer matters only while its client may still retry the request: keep answers at least as long as
    /// the store keeps changes (``Hangar/ChangeRetention/maximumAge``, what ``forgetAnswers(limit:)`` uses), since
    /// a client away longer resyncs from a snapshot anyway. A retry whose answer was forgotten is still never
    /// applied twice: its base no longer matches, so it meets the current document, and a current document equal
    /// byte for byte to the mutation is answered `applied` without a new revision; otherwise it is a conflict,
    /// decided by the client's resolver with the user's version kept.
    ///
    /// The bodies leave the collection; they leave the store too when `_sync.mutations` keeps no history
    /// (``Hangar/HistoryPolicy/keepNone``; ``Hangar/StoreConfiguration/keepingNoSyncHistory()``).
    @discardableResult
    public func forgetAnswers(olderThan date: Date, limit: Int = 10_000) async throws -> Int {
        var forgotten = 0
        while forgotten < limit {
            let batch = min(500, limit - forgotten)
            let expired = try await store.read { reader in try await Self.oldestAnswers(before: date, batch, reader) }
            guard !expired.isEmpty else { break }
            try await store.write { writer in
                for (key, revision) in expired {
                    // A record is written once; one written again since (never, today) is not touched.
                    _ = try await writer.delete(key: key, in: Self.mutationsCollection, expectedRevision: revision)
                }
            }
            forgotten += expired.count
            if expired.count < batch { break }
        }
        return forgotten
    }

    /// Forgets the answers older than the store's change retention (``Hangar/ChangeRetention/maximumAge``);
    /// none when the store keeps changes forever.
    @discardableResult
    public func forgetAnswers(limit: Int = 10_000) async throws -> Int {
        guard let age = store.configuration.changeRetention.maximumAge else { return 0 }
        return try await forgetAnswers(olderThan: Date(timeIntervalSinceNow: -age), limit: limit)
    }

    /// The keys and revisions of at most `count` of the oldest answers, all written before `date`.
    static func oldestAnswers(before date: Date, _ count: Int, _ reader: some DocumentReader) async throws
        -> [(key: String, revision: Int)]
    {
        let total = try await reader.count(in: mutationsCollection)
        guard total > 0 else { return [] }
        // Newest first, so the oldest `count` are the last ones.
        let keys = try await reader.keys(
            in: mutationsCollection, order: .recentlyUpdated, limit: count, offset: max(0, total - count))
        var expired: [(key: String, revision: Int)] = []
        for key in keys.reversed() {
            guard let stored = try await reader.document(in: mutationsCollection, key: key) else { continue }
            guard stored.updatedAt < date else { break }
            expired.append((key, stored.revision))
        }
        return expired
    }
}

extension StoreConfiguration {
    /// This configuration with no history kept for Hangar Sync's remembered answers (`_sync.mutations`), so the
    /// answers ``SyncServer/forgetAnswers(olderThan:limit:)`` forgets leave the store. A server store opens with
    /// it; the other collections' options are unchanged.
    public func keepingNoSyncHistory() -> StoreConfiguration {
        var configuration = self
        var options = configuration.options(for: SyncWriteAnswers.mutationsCollection)
        options.history = .keepNone
        configuration.collections[SyncWriteAnswers.mutationsCollection] = options
        return configuration
    }
}
