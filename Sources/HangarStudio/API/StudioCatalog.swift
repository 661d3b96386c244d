import Foundation
import Hangar

/// What a Collection page and the version chart need of one document, without its body.
struct DocumentRow: Sendable {
    let key: String
    let revision: Int
    let version: DocumentVersion
    let classTag: String?
    let updatedAt: Date
    let size: Int

    init(_ stored: StoredDocument) {
        key = stored.key
        revision = stored.revision
        version = stored.version
        classTag = stored.classTag
        updatedAt = stored.updatedAt
        size = stored.body.count
    }
}

/// Each collection's documents as rows, read once and then kept current from the change feed: the version chart,
/// the byte counts and the Collection page's filters, sorts and pages come from it, so they stay fast at 100,000
/// documents. Keys are told apart by their bytes (``Hangar/ExactString``).
actor StudioCatalog<Store: DocumentStore> {
    let store: Store
    private var snapshots: [ExactString: Snapshot] = [:]

    /// One collection's rows as of change `through`.
    struct Snapshot {
        var through: Int
        var rows: [ExactString: DocumentRow]
        /// The rows in key order, built when first asked after a change.
        var sortedByKey: [DocumentRow]?
    }

    /// How many documents one read transaction loads while a snapshot is built.
    static var batchSize: Int { 500 }
    /// More changes than this since the last look rebuild the snapshot rather than replay them.
    static var replayLimit: Int { 5_000 }

    init(store: Store) { self.store = store }

    /// The rows of `collection` in key order (bytes), current as of now.
    func rows(of collection: String) async throws -> [DocumentRow] {
        let name = ExactString(collection)
        var snapshot = try await current(name)
        if let sorted = snapshot.sortedByKey { return sorted }
        let sorted = snapshot.rows.values.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        snapshot.sortedByKey = sorted
        snapshots[name] = snapshot
        return sorted
    }

    /// The snapshot of `name`, brought up to date: built when absent (or too far behind), else the changes since
    /// replayed (each changed key read again).
    private func current(_ name: ExactString) async throws -> Snapshot {
        let collection = name.string
        if let snapshot = snapshots[name] {
            let through = snapshot.through
            let look: (last: Int, changes: [Change])?
            do {
                look = try await store.read { reader in
                    let last = try await reader.lastChangeSequence()
                    guard last != through else { return (last, []) }
                    let changes = try await reader.changes(
                        since: through, in: collection, limit: Self.replayLimit + 1)
                    return changes.count > Self.replayLimit ? nil : (last, changes)
                }
            } catch let error as HangarError where error.code == .changesTooOld {
                look = nil
            }
            if let look {
                if look.changes.isEmpty {
                    if look.last != through { snapshots[name]?.through = look.last }
                    return snapshots[name] ?? snapshot
                }
                let replayed = try await replay(look.changes, into: snapshot, collection: collection, last: look.last)
                snapshots[name] = replayed
                return replayed
            }
        }
        let built = try await build(collection)
        snapshots[name] = built
        return built
    }

    private func replay(_ changes: [Change], into snapshot: Snapshot, collection: String, last: Int) async throws
        -> Snapshot
    {
        var keys: [ExactString: String] = [:]
        for change in changes { keys[ExactString(change.key)] = change.key }
        let changed = Array(keys.values)
        var snapshot = snapshot
        let documents = try await store.read { reader in
            var documents: [(String, StoredDocument?)] = []
            for key in changed { documents.append((key, try await reader.document(in: collection, key: key))) }
            return documents
        }
        for (key, stored) in documents { snapshot.rows[ExactString(key)] = stored.map(DocumentRow.init) }
        snapshot.through = last
        snapshot.sortedByKey = nil
        return snapshot
    }

    private func build(_ collection: String) async throws -> Snapshot {
        let (last, keys) = try await store.read { reader in
            (try await reader.lastChangeSequence(), try await reader.keys(in: collection))
        }
        var rows: [ExactString: DocumentRow] = [:]
        rows.reserveCapacity(keys.count)
        var start = 0
        while start < keys.count {
            let batch = Array(keys[start..<min(keys.count, start + Self.batchSize)])
            let documents = try await store.read { reader in
                var documents: [StoredDocument] = []
                for key in batch {
                    if let stored = try await reader.document(in: collection, key: key) { documents.append(stored) }
                }
                return documents
            }
            for stored in documents { rows[ExactString(stored.key)] = DocumentRow(stored) }
            start += Self.batchSize
        }
        let sorted = keys.compactMap { rows[ExactString($0)] }
        return Snapshot(through: last, rows: rows, sortedByKey: sorted)
    }
}
