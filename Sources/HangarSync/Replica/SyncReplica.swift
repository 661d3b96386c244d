import Foundation
public import Hangar
public import PropertyList

/// What one sync pass of a collection did.
public struct SyncReport: Sendable, Hashable {
    /// The collection.
    public let collection: String
    /// Documents the pull changed locally.
    public var pulled = 0
    /// Local changes the server applied.
    public var pushed = 0
    /// Conflicts met (each decided once by the resolver).
    public var conflicts = 0
    /// Whether the pull resynced from a snapshot (first sync, pruned changes, another epoch, a restored server).
    public var resynced = false
    /// Keys whose server document is of a newer major than this client reads: stored as they are, never
    /// overwritten by this client.
    public var newerMajor: [String] = []
    /// Local changes the server refused (they stay local and pending), with why; keyed by the key's bytes.
    public var rejected: [ExactString: String] = [:]

    /// An empty report of `collection`.
    public init(collection: String) { self.collection = collection }
}

/// The client side of Hangar Sync: an embedded store (any ``Hangar/DocumentStore``, a `SQLiteStore` on a device)
/// kept in step with a server through a ``SyncTransport``.
///
/// The app saves and deletes with the store's ordinary API, offline or not: a document whose local revision is not
/// the one last in step with the server is a pending change, so the save itself, in its own transaction, is what
/// queues it, and no write can be missed (not even one of `hangar db put`). ``sync(_:)`` runs one pass: pull,
/// push, resolve conflicts, push the resolutions. Every step commits its local effects together with the
/// replica's records (``SyncCheckpoint`` per collection, a state per document, the client id and mutation
/// counter) in one local transaction, so a pass killed at any moment resumes with no gap, duplicate or loss.
public struct SyncReplica<Store: DocumentStore>: Sendable {
    /// The local store.
    public let store: Store
    /// How the server is reached.
    public let transport: any SyncTransport
    /// Decides conflicts (``SyncResolver/default`` unless told otherwise).
    public var resolver: SyncResolver
    /// The most mutations one push request carries.
    public var pushBatchSize = 200
    /// The most bytes of documents one push request carries (a mutation larger than this still goes, alone): half
    /// the server's limit on a push body (`HangarRouteOptions.maximumPushBodySize`, 16 MiB by default), so a
    /// full batch is never refused whole.
    public var pushBatchBytes = 8 << 20
    /// How long ``follow(_:onPass:)`` waits before its first retry after a cut stream or a failed pass.
    public var followRetryDelay: Duration = .milliseconds(100)
    /// The longest ``follow(_:onPass:)`` waits between retries.
    public var followLongestRetryDelay: Duration = .seconds(5)

    /// A replica of `store` syncing through `transport`.
    public init(store: Store, transport: any SyncTransport, resolver: SyncResolver = .default) {
        self.store = store
        self.transport = transport
        self.resolver = resolver
    }

    /// One sync pass of `collection`: pull until caught up (a snapshot when the checkpoint cannot be continued),
    /// then push every pending local change, resolving conflicts.
    public func sync(_ collection: String) async throws -> SyncReport {
        guard SyncServer<Store>.isSyncable(collection) else {
            throw SyncError(.invalidRequest, "\"\(collection)\" is not a collection that syncs")
        }
        var report = SyncReport(collection: collection)
        try await pull(collection, into: &report)
        try await pushPending(collection, into: &report)
        report.newerMajor = try await newerMajorKeys(collection)
        return report
    }

    /// The local documents of `collection` the resolver let the server's version replace, kept as they were:
    /// key (by its bytes) → envelope (`nil`: it was a delete).
    public func conflictCopies(in collection: String) async throws -> [ExactString: PropertyList?] {
        try await store.read { reader in
            var copies: [ExactString: PropertyList?] = [:]
            for stored in try await reader.documents(in: ReplicaRecords.conflictCollection(collection)) {
                let record = try stored.envelope()
                copies[ExactString(stored.key)] = try record["mine"]?.dataValue.map { try PropertyList(binary: $0) }
            }
            return copies
        }
    }

    // MARK: Pull

    func pull(_ collection: String, into report: inout SyncReport) async throws {
        while true {
            let checkpoint = try await store.read { try await ReplicaRecords.checkpoint(collection, $0) }
            let batch: SyncBatch
            var historyChanged = false
            if let checkpoint {
                do {
                    batch = try await transport.pull(collection, after: checkpoint)
                } catch let error as SyncError where error.code == .resyncNeeded || error.code == .historyChanged {
                    historyChanged = error.code == .historyChanged
                    batch = try await transport.snapshot(of: collection)
                }
            } else {
                batch = try await transport.snapshot(of: collection)
            }
            if batch.hasMore, !batch.isSnapshot, let checkpoint, batch.checkpoint.through <= checkpoint.through {
                throw SyncError(.malformedAnswer, "The server says more changes follow but its batch does not advance")
            }
            report.pulled += try await apply(batch, to: collection, historyChanged: historyChanged)
            if batch.isSnapshot { report.resynced = report.resynced || checkpoint != nil }
            if !batch.hasMore { return }
        }
    }

    /// Applies a batch and stores its checkpoint in one local transaction; returns how many documents changed.
    ///
    /// After `historyChanged` (another epoch, a restored server), the local documents in step with the old
    /// history that the snapshot does not hold as they are, are not replaced or deleted: they become pending
    /// changes over their old base, so the push offers them back and the resolver decides (nothing the server
    /// lost by a restore is lost on the clients too).
    func apply(_ batch: SyncBatch, to collection: String, historyChanged: Bool = false) async throws -> Int {
        try await store.write { writer in
            var changed = 0
            for item in batch.items {
                if historyChanged, try await Self.offerBack(item.key, unlessEqualTo: item, collection, writer) {
                    continue
                }
                if try await Self.apply(item, collection, writer) { changed += 1 }
            }
            if batch.isSnapshot {
                changed += try await Self.dropMissing(batch, collection, historyChanged: historyChanged, writer)
            }
            var checkpoint = batch.checkpoint
            // A push's acknowledgement past the batch stays to be verified by the next pull.
            if !historyChanged, !batch.isSnapshot, let old = try await ReplicaRecords.checkpoint(collection, writer),
                old.acknowledged > checkpoint.through
            {
                checkpoint.acknowledged = old.acknowledged
                checkpoint.acknowledgedMark = old.acknowledgedMark
            }
            try await ReplicaRecords.setCheckpoint(checkpoint, collection, writer)
            return changed
        }
    }

    /// Applies one server document unless the local one has pending changes (the push meets those as a
    /// conflict); returns whether it changed the local document.
    static func apply(_ item: SyncItem, _ collection: String, _ writer: Store.Writer) async throws -> Bool {
        let local = try await writer.document(in: collection, key: item.key)
        let state = try await ReplicaRecords.state(collection, item.key, writer)
        let now = local?.revision ?? 0
        if let state {
            guard !state.needsPush(localRevision: now) else { return false }
            if item.body != nil, item.revision <= state.base { return false }
        } else if local != nil {
            return false  // A local create not pushed yet.
        }
        let written = try await write(item.body, key: item.key, collection, over: local, writer)
        try await ReplicaRecords.setState(
            DocumentSyncState(base: item.body == nil ? 0 : item.revision, local: written, pending: [], pendingFor: 0),
            collection, item.key, writer)
        return written != now || item.body != nil
    }

    /// Stores `body` (or deletes, when `nil`) locally as it is (a newer major too: the server is the authority);
    /// returns the local revision (0: absent).
    static func write(
        _ body: [UInt8]?, key: String, _ collection: String, over local: StoredDocument?, _ writer: Store.Writer
    ) async throws -> Int {
        guard let body else {
            if let local {
                _ = try await writer.delete(
                    key: key, in: collection, expectedRevision: local.revision, overwritingNewerMajor: true)
            }
            return 0
        }
        let envelope: PropertyList
        do {
            envelope = try PropertyList(binary: body)
        } catch {
            throw SyncError(.malformedAnswer, "The server's body of \(collection)/\(key) is not a property list")
        }
        return try await writer.save(
            envelope: envelope, key: key, in: collection, expectedRevision: local?.revision ?? 0,
            overwritingNewerMajor: true)
    }

    /// After a snapshot: deletes the local documents in step with the server that the server no longer has
    /// (pending local changes stay, and are pushed).
    static func dropMissing(
        _ batch: SyncBatch, _ collection: String, historyChanged: Bool, _ writer: Store.Writer
    ) async throws -> Int {
        // By bytes: a local key canonically equivalent to a live one, spelled otherwise, is not live.
        let live = Set(batch.items.map { ExactString($0.key) })
        var dropped = 0
        for key in try await writer.keys(in: ReplicaRecords.stateCollection(collection))
        where !live.contains(ExactString(key)) {
            if historyChanged, try await offerBack(key, unlessEqualTo: nil, collection, writer) { continue }
            guard let state = try await ReplicaRecords.state(collection, key, writer) else { continue }
            let local = try await writer.document(in: collection, key: key)
            guard !state.needsPush(localRevision: local?.revision ?? 0) else { continue }
            if local != nil { dropped += 1 }
            _ = try await write(nil, key: key, collection, over: local, writer)
            try await ReplicaRecords.setState(.clean, collection, key, writer)
        }
        return dropped
    }

    /// After a history change: makes the local document at `key` a pending change over its old base when it is in
    /// step with the old history and the server's `item` (`nil`: none) is not the same document; returns whether
    /// it did.
    static func offerBack(_ key: String, unlessEqualTo item: SyncItem?, _ collection: String, _ writer: Store.Writer)
        async throws -> Bool
    {
        guard var state = try await ReplicaRecords.state(collection, key, writer) else { return false }
        let local = try await writer.document(in: collection, key: key)
        guard !state.needsPush(localRevision: local?.revision ?? 0), let local else { return false }
        if let item, item.revision == state.base, item.body == (try local.plaintextBody()) { return false }
        state.local = -1
        try await ReplicaRecords.setState(state, collection, key, writer)
        return true
    }

    /// The local keys of `collection` stored at a newer major than the collection's format reads.
    func newerMajorKeys(_ collection: String) async throws -> [String] {
        guard let format = store.configuration.options(for: collection).format else { return [] }
        return try await store.read { try await $0.keys(in: collection, newerThanMajor: format.current.major) }
    }
}
