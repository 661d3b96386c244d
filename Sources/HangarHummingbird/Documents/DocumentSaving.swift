import Hangar
import PropertyList

/// Where a PUT's document is saved: in a write transaction (``InTransaction``), or to the store as a single write of
/// its own (``AsSingleWrite``). The routes save through this one shape, so a save is written once for both.
protocol DocumentSaving {
    /// Saves `document` under `key`; returns its new revision.
    func save<Document: VersionedDocument>(
        _ document: Document, key: String, in collection: String, expectedRevision: Int?
    ) async throws -> Int

    /// Saves an envelope as it is under `key`; returns its new revision.
    func save(envelope: PropertyList, key: String, in collection: String, expectedRevision: Int?) async throws -> Int
}

/// Saves in the write transaction `writer`.
struct InTransaction<Writer: DocumentWriter>: DocumentSaving {
    let writer: Writer

    func save<Document: VersionedDocument>(
        _ document: Document, key: String, in collection: String, expectedRevision: Int?
    ) async throws -> Int {
        try await writer.save(document, key: key, in: collection, expectedRevision: expectedRevision)
    }

    func save(envelope: PropertyList, key: String, in collection: String, expectedRevision: Int?) async throws -> Int {
        try await writer.save(envelope: envelope, key: key, in: collection, expectedRevision: expectedRevision)
    }
}

/// Saves to `store`, each save a single write of its own (``Hangar/SingleWrite``), keeping the commit token of the
/// last one (``token``).
final class AsSingleWrite<Store: DocumentStore>: DocumentSaving {
    let store: Store
    /// The commit token of the last save that returned.
    private(set) var token: CommitToken?

    init(store: Store) {
        self.store = store
    }

    func save<Document: VersionedDocument>(
        _ document: Document, key: String, in collection: String, expectedRevision: Int?
    ) async throws -> Int {
        let saved = try await store.saveReturningToken(
            document, key: key, in: collection, expectedRevision: expectedRevision)
        token = saved.token
        return saved.value
    }

    func save(envelope: PropertyList, key: String, in collection: String, expectedRevision: Int?) async throws -> Int {
        let saved = try await store.saveReturningToken(
            envelope: envelope, key: key, in: collection, expectedRevision: expectedRevision)
        token = saved.token
        return saved.value
    }
}
