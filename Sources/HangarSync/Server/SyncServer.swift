import Foundation
public import Hangar
import PropertyList

/// The server side of Hangar Sync over any engine's ``Hangar/DocumentStore``, with no HTTP framework: pull
/// (changes after a checkpoint, in batches ending on a transaction boundary), snapshot, and push (mutations
/// applied at most once). An HTTP layer (the Pilots example's `HangarSyncRoutes`) maps requests to these calls.
///
/// What it keeps in the store, in reserved collections whose names start with `_sync`: the store's identity
/// (`_sync` / `identity`: an id and an epoch) and the answer to every applied mutation
/// (`_sync.mutations` / `CLIENT/ID`), written in the same transaction as the mutation's save or delete.
public struct SyncServer<Store: DocumentStore>: Sendable {
    /// The store served.
    public let store: Store
    /// The most changes one pull answers (a transaction larger than that is answered whole).
    public var batchLimit: Int
    /// The largest document a push may store, in bytes (its binary property list): a larger one is rejected
    /// (code `contentTooLarge`), as an HTTP server's body limit refuses it in a PUT. `nil`: no limit.
    public var maximumDocumentSize: Int?

    /// The server over `store`.
    public init(store: Store, batchLimit: Int = 500) {
        self.store = store
        self.batchLimit = max(1, batchLimit)
    }

    /// The reserved collection of the store's identity.
    public static var identityCollection: String { "_sync" }
    /// The reserved collection of the answers to applied mutations.
    public static var mutationsCollection: String { "_sync.mutations" }

    /// Whether `collection` may be synced: not empty, not reserved (names whose bytes start `_sync`), without
    /// NUL or `/` (``SyncOwnership`` keys its records `COLLECTION/KEY`).
    public static func isSyncable(_ collection: String) -> Bool {
        !collection.isEmpty && !collection.utf8.starts(with: "_sync".utf8) && !collection.utf8.contains(0)
            && !collection.utf8.contains(UInt8(ascii: "/"))
    }

    // MARK: Identity

    /// The store's id and epoch, created on first use.
    public func identity() async throws -> (storeID: String, epoch: String) {
        if let existing = try await store.read({ try await Self.readIdentity($0) }) { return existing }
        let fresh = (storeID: UUID().uuidString, epoch: UUID().uuidString)
        do {
            try await store.write { writer in
                try await writer.save(
                    envelope: Self.identityEnvelope(fresh), key: "identity", in: Self.identityCollection,
                    expectedRevision: 0)
            }
            return fresh
        } catch let error as HangarError where error.code == .conflict {
            // Another request created it first.
            guard let existing = try await store.read({ try await Self.readIdentity($0) }) else { throw error }
            return existing
        }
    }

    /// Gives the store a new epoch (its id stays): every client resyncs from a snapshot on its next pull, keeping
    /// its pending writes. Run it after restoring the store from a backup, importing into it, or salvaging it.
    @discardableResult
    public func startNewEpoch() async throws -> String {
        let storeID = try await identity().storeID
        let epoch = UUID().uuidString
        try await store.write { writer in
            try await writer.save(
                envelope: Self.identityEnvelope((storeID, epoch)), key: "identity", in: Self.identityCollection)
        }
        return epoch
    }

    static func identityEnvelope(_ identity: (storeID: String, epoch: String)) -> PropertyList {
        ["majorVersion": 1, "minorVersion": 0, "storeID": .string(identity.storeID), "epoch": .string(identity.epoch)]
    }

    static func readIdentity(_ reader: some DocumentReader) async throws -> (storeID: String, epoch: String)? {
        guard let stored = try await reader.document(in: identityCollection, key: "identity") else { return nil }
        let envelope = try stored.envelope()
        guard let storeID = envelope["storeID"]?.stringValue, let epoch = envelope["epoch"]?.stringValue else {
            throw HangarError(.invalidDocument, "The sync identity is malformed", at: .root)
        }
        return (storeID, epoch)
    }

    /// The mark of a change: what a restored store's change at the same sequence would not share.
    public static func mark(of change: Change) -> String {
        "\(change.transaction)-\(String(change.committedAt.timeIntervalSinceReferenceDate.bitPattern, radix: 16))-"
            + "\(change.revision)"
    }

    // MARK: Pull

    /// The documents of `collection` changed after `checkpoint`, at most about ``batchLimit`` changes' worth,
    /// ending on a transaction boundary, each at its state as of this read, with the checkpoint to store.
    ///
    /// Throws ``SyncError/Code/resyncNeeded`` when changes after the checkpoint were pruned, and
    /// ``SyncError/Code/historyChanged`` when it belongs to another store or epoch, or the store's feed at its
    /// sequence is not the one it saw (a restore from an older copy): both HTTP 410. The client then takes a
    /// ``snapshot(of:user:)``.
    ///
    /// With a `user`, only the documents that user owns are answered (``SyncOwnership``); `nil`: all of them.
    public func pull(_ collection: String, after checkpoint: SyncCheckpoint, user: String? = nil) async throws
        -> SyncBatch
    {
        try Self.checkSyncable(collection)
        let identity = try await identity()
        let limit = batchLimit
        return try await store.read { reader in
            let last = try await Self.verify(checkpoint, of: identity, reader)
            let (changes, hasMore) = try await Self.transactionBounded(
                collection, after: checkpoint.through, limit: limit, reader)
            let through = hasMore ? (changes.last?.sequence ?? last) : last
            var items: [SyncItem] = []
            // By bytes: two keys equal but for normalization are two documents.
            var seen: [ExactString: Int] = [:]
            for change in changes {
                if let index = seen[ExactString(change.key)] {
                    items[index].revision = change.revision
                } else {
                    seen[ExactString(change.key)] = items.count
                    items.append(SyncItem(key: change.key, revision: change.revision, body: nil))
                }
            }
            var visible: [SyncItem] = []
            for var item in items {
                guard try await SyncOwnership.isVisible(item.key, in: collection, to: user, reader) else { continue }
                if let stored = try await reader.document(in: collection, key: item.key) {
                    item.revision = stored.revision
                    item.body = try stored.plaintextBody()
                }
                visible.append(item)
            }
            let next = SyncCheckpoint(
                storeID: identity.storeID, epoch: identity.epoch, through: through,
                mark: try await Self.mark(at: through, reader))
            return SyncBatch(checkpoint: next, items: visible, hasMore: hasMore, isSnapshot: false)
        }
    }

    /// Checks that `checkpoint` continues this store's history (the same store and epoch, not ahead of it, the
    /// same change at its sequence, and at its acknowledged sequence); returns the store's last sequence.
    /// ``SyncError/Code/historyChanged`` (410) otherwise; ``SyncError/Code/resyncNeeded`` when the change at the
    /// checkpoint was pruned.
    static func verify(
        _ checkpoint: SyncCheckpoint, of identity: (storeID: String, epoch: String), _ reader: some DocumentReader
    ) async throws -> Int {
        guard checkpoint.storeID.hasSameBytes(as: identity.storeID), checkpoint.epoch.hasSameBytes(as: identity.epoch)
        else {
            throw SyncError(.historyChanged, "The checkpoint belongs to another store or epoch")
        }
        let last = try await reader.lastChangeSequence()
        guard checkpoint.through <= last else {
            throw SyncError(.historyChanged, "The checkpoint is ahead of the store (restored?)")
        }
        guard try await mark(at: checkpoint.through, reader) == checkpoint.mark else {
            throw SyncError(.historyChanged, "The store's history differs at the checkpoint")
        }
        if checkpoint.acknowledged > checkpoint.through {
            guard checkpoint.acknowledged <= last,
                try await mark(at: checkpoint.acknowledged, reader) == checkpoint.acknowledgedMark
            else {
                throw SyncError(
                    .historyChanged, "The store no longer holds this client's acknowledged writes")
            }
        }
        return last
    }

    /// Every live document of `collection` (with a `user`, those the user owns) and the checkpoint to continue
    /// from, read in one transaction.
    public func snapshot(of collection: String, user: String? = nil) async throws -> SyncBatch {
        try Self.checkSyncable(collection)
        let identity = try await identity()
        return try await store.read { reader in
            let last = try await reader.lastChangeSequence()
            var items: [SyncItem] = []
            for stored in try await reader.documents(in: collection) {
                guard try await SyncOwnership.isVisible(stored.key, in: collection, to: user, reader) else { continue }
                items.append(SyncItem(key: stored.key, revision: stored.revision, body: try stored.plaintextBody()))
            }
            let checkpoint = SyncCheckpoint(
                storeID: identity.storeID, epoch: identity.epoch, through: last,
                mark: try await Self.mark(at: last, reader))
            return SyncBatch(checkpoint: checkpoint, items: items, hasMore: false, isSnapshot: true)
        }
    }

    static func checkSyncable(_ collection: String) throws(SyncError) {
        guard isSyncable(collection) else {
            throw SyncError(.notFound, "\"\(collection)\" is not a collection that syncs")
        }
    }

    /// The mark of the change at `sequence` ("" for 0); resync when it is pruned.
    static func mark(at sequence: Int, _ reader: some DocumentReader) async throws -> String {
        guard sequence > 0 else { return "" }
        let changes = try await kept(since: sequence - 1, in: nil, limit: 1, reader)
        guard let change = changes.first, change.sequence == sequence else { return "?" }
        return mark(of: change)
    }

    /// The changes of `collection` after `sequence`: at most `limit` unless one transaction holds more, cut so
    /// that no transaction is split; and whether more follow.
    static func transactionBounded(
        _ collection: String, after sequence: Int, limit: Int, _ reader: some DocumentReader
    ) async throws -> (changes: [Change], hasMore: Bool) {
        var window = limit
        while true {
            let changes = try await kept(since: sequence, in: collection, limit: window + 1, reader)
            guard changes.count > window else { return (changes, false) }
            let cut = changes[window].transaction
            let kept = changes[..<window].filter { $0.transaction != cut }
            if !kept.isEmpty { return (Array(kept), true) }
            // One transaction larger than the window: widen it until the transaction ends.
            window *= 2
        }
    }

    /// The reader's changes; ``SyncError/Code/resyncNeeded`` (410) when some were pruned.
    static func kept(since sequence: Int, in collection: String?, limit: Int, _ reader: some DocumentReader)
        async throws -> [Change]
    {
        let result: Result<[Change], HangarError>
        do {
            result = .success(try await reader.changes(since: sequence, in: collection, limit: limit))
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let changes): return changes
        case .failure(let error) where error.code == .changesTooOld:
            throw SyncError(.resyncNeeded, "Changes after the checkpoint are no longer kept")
        case .failure(let error): throw error
        }
    }
}
