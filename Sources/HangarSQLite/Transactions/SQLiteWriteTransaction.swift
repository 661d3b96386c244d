import Foundation
import Hangar
public import PropertyList

/// What a `write` closure is handed: everything a read transaction does, plus saves and deletes that
/// are committed together when the closure returns. Use it only inside the closure.
public final class SQLiteWriteTransaction: SQLiteReadTransaction {
    /// The mirrors of the collections this transaction changed, to catch up once it has committed.
    private var mirrorsToCatchUp: Set<PendingMirror> = []
    /// ``mirrorsToCatchUp``, in a stable order.
    var pendingMirrors: [PendingMirror] {
        mirrorsToCatchUp.sorted { ($0.collection, $0.directory) < ($1.collection, $1.directory) }
    }
    /// The change feed's counter as this transaction has advanced it, once it has recorded a change.
    private var feed: FeedState?
    /// Per collection, the indexes built for it once this transaction has checked the catalog (and dropped the
    /// ones this store does not declare): the catalog is read once a transaction, not once a save. Names are
    /// compared by their bytes: two collections whose names are canonically equivalent are two collections.
    var indexesBuiltByCollection: [ExactString: Set<ExactString>] = [:]
    /// Whether this transaction recorded a change (followers are woken once it commits).
    var recordedChanges: Bool { feed != nil }
    /// The bytes of the bodies this transaction saved (a write group's size, ``SQLiteStoreConfiguration/GroupCommit``).
    private(set) var bytesWritten = 0

    // MARK: Saving

    /// Saves `document` under `key` and returns its new revision (``DocumentWriter/save(_:key:in:expectedRevision:overwritingNewerMajor:)``).
    @discardableResult
    public func save<Document: VersionedDocument>(
        _ document: Document,
        key: String,
        in collection: String = Document.collection,
        expectedRevision: Int? = nil,
        overwritingNewerMajor: Bool = false
    ) throws(HangarError) -> Int {
        checkValid()
        try DocumentRules.checkName(collection, what: "collection")
        try DocumentRules.checkName(key, what: "key")
        let current = try currentRow(collection: collection, key: key)
        let stored =
            DocumentRules.keepsStoredKeys(storedVersion: current?.version, format: Document.format)
            ? try self.document(in: collection, key: key) : nil
        let (envelope, version) = try DocumentRules.modelEnvelope(
            document, stored: stored, registry: store.configuration.registry, collection: collection, key: key)
        let plan = try DocumentRules.planSave(
            envelope, version: version, expectedRevision: expectedRevision,
            readableMajor: Document.format.current.major, overwritingNewerMajor: overwritingNewerMajor,
            configuration: store.configuration, collection: collection, key: key)
        return try apply(plan, current: current)?.revision ?? 0
    }

    /// Saves an envelope as it is under `key` and returns its new revision
    /// (``DocumentWriter/save(envelope:key:in:expectedRevision:overwritingNewerMajor:)``).
    @discardableResult
    public func save(
        envelope: PropertyList,
        key: String,
        in collection: String,
        expectedRevision: Int? = nil,
        overwritingNewerMajor: Bool = false
    ) throws(HangarError) -> Int {
        checkValid()
        let plan = try DocumentRules.planEnvelopeSave(
            envelope, expectedRevision: expectedRevision, overwritingNewerMajor: overwritingNewerMajor,
            configuration: store.configuration, collection: collection, key: key)
        return try apply(plan)?.revision ?? 0
    }

    /// Applies a single write planned before the transaction (``SQLiteStore/perform(_:inTransactionOtherwise:)``);
    /// `nil`, having written nothing, for a model save that finds a stored newer minor whose keys it must keep.
    func apply(_ single: SingleWrite) throws(HangarError) -> SingleWrite.Outcome? {
        checkValid()
        let plan = single.plan
        let current = try currentRow(collection: plan.collection, key: plan.key)
        if let format = single.modelFormat,
            DocumentRules.keepsStoredKeys(storedVersion: current?.version, format: format)
        {
            return nil
        }
        return SingleWrite.Outcome(try apply(plan, current: current), of: plan)
    }

    // MARK: Deleting and restoring

    /// Deletes the document at `key`; returns whether there was one
    /// (``DocumentWriter/delete(key:in:expectedRevision:overwritingNewerMajor:)``).
    @discardableResult
    public func delete(
        key: String, in collection: String, expectedRevision: Int? = nil, overwritingNewerMajor: Bool = false
    ) throws(HangarError) -> Bool {
        checkValid()
        let plan = try DocumentRules.planDelete(
            key: key, in: collection, expectedRevision: expectedRevision,
            overwritingNewerMajor: overwritingNewerMajor, configuration: store.configuration)
        return try apply(plan) != nil
    }

    /// Saves a kept earlier revision again, as a new revision; returns the new revision number. Like an envelope
    /// save, a stored document of a newer major is not replaced (``HangarError/newerMajor``) unless
    /// `overwritingNewerMajor`.
    @discardableResult
    public func restore(
        key: String, in collection: String, revision: Int, overwritingNewerMajor: Bool = false
    ) throws(HangarError) -> Int {
        checkValid()
        guard let old = try document(in: collection, key: key, revision: revision) else {
            throw HangarError(.notFound, "Revision \(revision) is not kept", collection: collection, key: key)
        }
        let plan = try DocumentRules.planRestore(
            old, overwritingNewerMajor: overwritingNewerMajor, configuration: store.configuration)
        return try apply(plan)?.revision ?? 0
    }

    // MARK: Applying a plan

    /// Applies `plan` (``WritePlan``) to the stored row (`current`, read here unless the caller read it) in
    /// SQLite's SQL; returns what was written, `nil` for a delete of nothing.
    private func apply(_ plan: WritePlan, current known: CurrentRow?? = nil) throws(HangarError) -> ResolvedWrite? {
        let (collection, key) = (plan.collection, plan.key)
        let current: CurrentRow?
        if let known { current = known } else { current = try currentRow(collection: collection, key: key) }
        let resolved = try DocumentRules.resolve(
            plan, current: current,
            lastRevision: { () throws(HangarError) in
                try lastRevision(collection: collection, key: key)
            }, configuration: store.configuration, instruments: store.instruments)
        guard let resolved else { return nil }
        // Checked for unique values before anything is written: a duplicate writes nothing.
        let entries = try checkUnique(resolved.indexEntries, collection: collection, key: key)
        if resolved.replacesCurrent {
            try moveCurrentToHistory(collection: collection, key: key, policy: resolved.history)
        }
        if let body = resolved.body, let content = plan.content {
            bytesWritten += body.bytes.count
            try execute(
                resolved.replacesCurrent ? SQLiteSQL.updateDocument : SQLiteSQL.insertDocument,
                [
                    .text(collection), .text(key), content.classTag.map(SQLiteValue.text) ?? .null,
                    .integer(Int64(content.version.major)), .integer(Int64(content.version.minor)),
                    .integer(Int64(resolved.revision)), .real(Date().timeIntervalSince1970), .blob(body.bytes),
                    body.keyID.map(SQLiteValue.text) ?? .null,
                ], collection: collection, key: key)
            try replaceIndexEntries(entries, collection: collection, key: key)
        } else {
            // The revision outlives the document (and a history the policy prunes): it is never reused.
            try execute(
                SQLiteSQL.setLastRevision, [.text(collection), .text(key), .integer(Int64(resolved.revision))],
                collection: collection, key: key)
            try execute(SQLiteSQL.deleteDocument, [.text(collection), .text(key)], collection: collection, key: key)
            try execute(
                SQLiteSQL.deleteIndexEntriesOfKey, [.text(collection), .text(key)], collection: collection, key: key)
        }
        try recordChange(resolved.change)
        return resolved
    }

    /// The last revision `key` ever had, whether or not it exists now; 0 for a key never saved.
    private func lastRevision(collection: String, key: String) throws(HangarError) -> Int {
        try query(
            SQLiteSQL.lastRevision, [.text(collection), .text(key)], collection: collection, key: key
        ) { Int($0.int64(at: 0)) }.first ?? 0
    }

    /// The stored row of `key`: revision, version, class tag and key id.
    private func currentRow(collection: String, key: String) throws(HangarError) -> CurrentRow? {
        try query(
            SQLiteSQL.currentRow,
            [.text(collection), .text(key)], collection: collection, key: key
        ) { statement in
            CurrentRow(
                revision: Int(statement.int64(at: 0)),
                version: DocumentVersion(major: Int(statement.int64(at: 1)), minor: Int(statement.int64(at: 2))),
                classTag: statement.optionalText(at: 3), keyID: statement.optionalText(at: 4))
        }.first
    }

    /// Copies the current revision into history (when `policy` keeps any) and prunes to the policy.
    private func moveCurrentToHistory(collection: String, key: String, policy: HistoryPolicy) throws(HangarError) {
        let arguments: [SQLiteValue] = [.text(collection), .text(key)]
        switch policy {
        case .keepNone:
            try execute(SQLiteSQL.deleteHistory, arguments, collection: collection, key: key)
        case .keepAll:
            try execute(SQLiteSQL.copyCurrentToHistory, arguments, collection: collection, key: key)
        case .keepLast(let count):
            try execute(SQLiteSQL.copyCurrentToHistory, arguments, collection: collection, key: key)
            try execute(
                SQLiteSQL.pruneHistory, arguments + [.integer(Int64(max(0, count)))], collection: collection, key: key)
        }
    }

    // MARK: The change feed

    /// The feed as this transaction has advanced it: the last sequence given, this transaction's id (the
    /// sequence of its first change), the last sequence pruned.
    private struct FeedState {
        var lastSequence: Int
        let transaction: Int
        let prunedThrough: Int
    }

    /// Records `change` (for a delete, the revision being deleted) as the next change. The next
    /// sequence is one after the largest recorded, read under the writer's lock: a failed record or a
    /// rolled-back transaction leaves no gap.
    private func recordChange(_ change: RecordedChange) throws(HangarError) {
        let (collection, key) = (change.collection, change.key)
        let state: FeedState
        if let feed {
            state = feed
        } else {
            let row = try query(SQLiteSQL.changeCounter, []) { statement in
                let last = Int(statement.int64(at: 0))
                return FeedState(lastSequence: last, transaction: last + 1, prunedThrough: Int(statement.int64(at: 1)))
            }.first
            guard let row else {
                throw HangarError(.database, "The store's change counter is missing")
            }
            state = row
        }
        let sequence = state.lastSequence + 1
        try execute(
            SQLiteSQL.recordChange,
            [
                .integer(Int64(sequence)), .integer(Int64(state.transaction)), .text(change.kind.rawValue),
                .real(Date().timeIntervalSince1970), .text(collection), .text(key), .integer(Int64(change.revision)),
                .integer(Int64(change.version.major)), .integer(Int64(change.version.minor)),
                change.classTag.map(SQLiteValue.text) ?? .null,
            ], collection: collection, key: key)
        var next = state
        next.lastSequence = sequence
        feed = next
        if let directory = store.sqliteConfiguration.mirrorDirectory(for: collection) {
            mirrorsToCatchUp.insert(PendingMirror(collection: collection, directory: directory))
        }
    }

    /// Prunes what ``StoreConfiguration/changeRetention`` no longer keeps; run last in the transaction,
    /// before it commits. A transaction that changed nothing does nothing here.
    ///
    /// Pruning may come later than the retention allows, never earlier: by count, once 1 % of the maximum
    /// (at least one change) is over it; by age, only once the oldest change kept may have grown too old
    /// (``ChangePruningSchedule``), so that most commits run no query for it.
    func finishChanges() throws(HangarError) {
        guard let feed else { return }
        let retention = store.configuration.changeRetention
        var boundary = feed.prunedThrough
        if let maximumCount = retention.maximumCount.map({ max(0, $0) }),
            feed.lastSequence - maximumCount - feed.prunedThrough > maximumCount / 100
        {
            boundary = feed.lastSequence - maximumCount
        }
        if let maximumAge = retention.maximumAge {
            let now = Date().timeIntervalSince1970
            if store.changePruning.isAgeCheckDue(at: now) {
                let firstKept = try query(
                    SQLiteSQL.firstChangeNotOlderThan, [.integer(Int64(boundary)), .real(now - maximumAge)]
                ) { (sequence: Int($0.int64(at: 0)), committedAt: $0.double(at: 1)) }.first
                boundary = max(boundary, (firstKept?.sequence ?? feed.lastSequence + 1) - 1)
                // Nothing kept can be too old before the first change kept is.
                store.changePruning.scheduleAgeCheck(at: (firstKept?.committedAt ?? now) + maximumAge)
            }
        }
        guard boundary > feed.prunedThrough else { return }
        try execute(SQLiteSQL.pruneChanges, [.integer(Int64(boundary))])
        try execute(SQLiteSQL.setPrunedThrough, [.integer(Int64(boundary))])
    }
}
