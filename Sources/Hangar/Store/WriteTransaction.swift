import Foundation
public import PropertyList

/// What a `write` closure is handed: everything a read transaction does, plus saves and deletes that
/// are committed together when the closure returns. Use it only inside the closure.
public final class WriteTransaction: ReadTransaction {
    /// The mirrors of the collections this transaction changed, to catch up once it has committed.
    private var mirrorsToCatchUp: Set<PendingMirror> = []
    /// ``mirrorsToCatchUp``, in a stable order.
    var pendingMirrors: [PendingMirror] {
        mirrorsToCatchUp.sorted { ($0.collection, $0.directory) < ($1.collection, $1.directory) }
    }
    /// The change feed's counter as this transaction has advanced it, once it has recorded a change.
    private var feed: FeedState?
    /// Per collection, the indexes built for it once this transaction has checked the catalog (and dropped the
    /// ones this store does not declare): the catalog is read once a transaction, not once a save.
    var indexesBuiltByCollection: [String: Set<String>] = [:]
    /// Whether this transaction recorded a change (followers are woken once it commits).
    var recordedChanges: Bool { feed != nil }

    // MARK: Saving models

    /// Saves `document` under `key` and returns its new revision.
    ///
    /// - `expectedRevision`: when given, the save happens only if the stored revision is exactly that
    ///   (0: the document must not exist yet); otherwise it throws ``HangarError/conflict`` and writes nothing.
    /// - A stored document of a newer major is never overwritten (``HangarError/newerMajor``) unless
    ///   `overwritingNewerMajor` is true.
    /// - A stored document of the same major and a newer minor keeps the keys this code does not know, and
    ///   its minor: an older app never destroys a newer app's additions.
    @discardableResult
    public func save<Document: VersionedDocument>(
        _ document: Document,
        key: String,
        in collection: String = Document.collection,
        expectedRevision: Int? = nil,
        overwritingNewerMajor: Bool = false
    ) throws(HangarError) -> Int {
        checkValid()
        let current = try currentRow(collection: collection, key: key)
        let stored =
            DocumentRules.keepsStoredKeys(storedVersion: current?.version, format: Document.format)
            ? try self.document(in: collection, key: key) : nil
        let (envelope, version) = try DocumentRules.modelEnvelope(
            document, stored: stored, registry: store.configuration.registry, collection: collection, key: key)
        return try write(
            envelope, version: version, current: current, collection: collection, key: key,
            expectedRevision: expectedRevision, readableMajor: Document.format.current.major,
            overwritingNewerMajor: overwritingNewerMajor, kind: .save)
    }

    // MARK: Saving envelopes

    /// Saves an envelope (a dictionary with `majorVersion` and `minorVersion`) under `key`, as it is, and
    /// returns its new revision. For files and tools that have no model type; `expectedRevision` and
    /// `overwritingNewerMajor` work as in the model save. When the collection's options name a format, a
    /// document of a newer major than it reads is refused; either way, a stored document of a newer major
    /// than the one given is not replaced (an older file never overwrites newer data) unless forced.
    @discardableResult
    public func save(
        envelope: PropertyList,
        key: String,
        in collection: String,
        expectedRevision: Int? = nil,
        overwritingNewerMajor: Bool = false
    ) throws(HangarError) -> Int {
        checkValid()
        return try saveEnvelope(
            envelope, key: key, in: collection, expectedRevision: expectedRevision,
            overwritingNewerMajor: overwritingNewerMajor, kind: .save)
    }

    /// ``save(envelope:key:in:expectedRevision:overwritingNewerMajor:)``, recorded in the feed as `kind`.
    private func saveEnvelope(
        _ envelope: PropertyList, key: String, in collection: String, expectedRevision: Int?,
        overwritingNewerMajor: Bool, kind: Change.Kind
    ) throws(HangarError) -> Int {
        let (version, readableMajor) = try DocumentRules.checkEnvelope(
            envelope, configuration: store.configuration, collection: collection, key: key,
            overwritingNewerMajor: overwritingNewerMajor)
        let current = try currentRow(collection: collection, key: key)
        return try write(
            envelope, version: version, current: current, collection: collection, key: key,
            expectedRevision: expectedRevision, readableMajor: readableMajor,
            overwritingNewerMajor: overwritingNewerMajor, kind: kind)
    }

    // MARK: Deleting and restoring

    /// Deletes the document at `key`; returns whether there was one. Its last revision joins the history
    /// (as the collection's policy keeps it), so it can be restored. `expectedRevision` works as in `save`.
    @discardableResult
    public func delete(key: String, in collection: String, expectedRevision: Int? = nil) throws(HangarError) -> Bool {
        checkValid()
        let current = try currentRow(collection: collection, key: key)
        try DocumentRules.checkDelete(
            expectedRevision, actual: current?.revision, collection: collection, key: key,
            instruments: store.instruments)
        guard let current else { return false }
        try moveCurrentToHistory(collection: collection, key: key)
        // The revision outlives the document (and a history the policy prunes): it is never reused.
        try execute(
            StoreSQL.setLastRevision, [.text(collection), .text(key), .integer(Int64(current.revision))],
            collection: collection, key: key)
        try recordChange(
            .delete, collection: collection, key: key, revision: current.revision, version: current.version,
            classTag: try currentClassTag(collection: collection, key: key))
        try execute(
            StoreSQL.deleteDocument, [.text(collection), .text(key)],
            collection: collection, key: key)
        try execute(
            StoreSQL.deleteIndexEntriesOfKey, [.text(collection), .text(key)],
            collection: collection, key: key)
        return true
    }

    /// Saves a kept earlier revision again, as a new revision; returns the new revision number.
    @discardableResult
    public func restore(key: String, in collection: String, revision: Int) throws(HangarError) -> Int {
        checkValid()
        guard let old = try document(in: collection, key: key, revision: revision) else {
            throw HangarError(.notFound, "Revision \(revision) is not kept", collection: collection, key: key)
        }
        return try saveEnvelope(
            old.envelope(), key: key, in: collection, expectedRevision: nil, overwritingNewerMajor: true,
            kind: .restore)
    }

    // MARK: The one write path

    private func write(
        _ envelope: PropertyList,
        version: DocumentVersion,
        current: CurrentRow?,
        collection: String,
        key: String,
        expectedRevision: Int?,
        readableMajor: Int?,
        overwritingNewerMajor: Bool,
        kind: Change.Kind
    ) throws(HangarError) -> Int {
        let prepared = try DocumentRules.prepareWrite(
            envelope, current: current.map { ($0.revision, $0.version, $0.keyID) }, expectedRevision: expectedRevision,
            readableMajor: readableMajor, overwritingNewerMajor: overwritingNewerMajor,
            configuration: store.configuration, collection: collection, key: key, instruments: store.instruments)
        let classTag = prepared.classTag
        // Checked for unique values before anything is written: a duplicate writes nothing.
        let entries = try checkUnique(prepared.indexEntries, collection: collection, key: key)
        let now = Date().timeIntervalSince1970
        // Revisions of a key only grow: past deletes, history pruning and restores (``StoreSchema`` step 2).
        // A stored document's revision is its key's largest; a deleted one's is kept in key_revisions.
        let revision = DocumentRules.nextRevision(
            current: current?.revision,
            lastEver: current == nil ? try lastRevision(collection: collection, key: key) : 0)
        let (body, keyID) = try DocumentRules.storedBody(
            prepared, revision: revision, configuration: store.configuration, collection: collection, key: key)
        if current != nil {
            try moveCurrentToHistory(collection: collection, key: key)
            try execute(
                StoreSQL.updateDocument,
                [
                    .text(collection), .text(key), classTag.map(SQLiteValue.text) ?? .null,
                    .integer(Int64(version.major)), .integer(Int64(version.minor)), .integer(Int64(revision)),
                    .real(now), .blob(body), keyID.map(SQLiteValue.text) ?? .null,
                ], collection: collection, key: key)
        } else {
            try execute(
                StoreSQL.insertDocument,
                [
                    .text(collection), .text(key), classTag.map(SQLiteValue.text) ?? .null,
                    .integer(Int64(version.major)), .integer(Int64(version.minor)), .integer(Int64(revision)),
                    .real(now), .blob(body), keyID.map(SQLiteValue.text) ?? .null,
                ], collection: collection, key: key)
        }
        try replaceIndexEntries(entries, collection: collection, key: key)
        try recordChange(
            kind, collection: collection, key: key, revision: revision, version: version, classTag: classTag)
        return revision
    }

    /// What a save needs to know of the stored document: its revision and version, not its bytes.
    struct CurrentRow {
        let revision: Int
        let version: DocumentVersion
        /// The id of the key its body is sealed with (nil: plaintext).
        let keyID: String?
    }

    /// The last revision `key` ever had, whether or not it exists now; 0 for a key never saved.
    private func lastRevision(collection: String, key: String) throws(HangarError) -> Int {
        try query(
            StoreSQL.lastRevision, [.text(collection), .text(key)], collection: collection, key: key
        ) { Int($0.int64(at: 0)) }.first ?? 0
    }

    private func currentRow(collection: String, key: String) throws(HangarError) -> CurrentRow? {
        try query(
            StoreSQL.currentRevision,
            [.text(collection), .text(key)], collection: collection, key: key
        ) { statement in
            CurrentRow(
                revision: Int(statement.int64(at: 0)),
                version: DocumentVersion(major: Int(statement.int64(at: 1)), minor: Int(statement.int64(at: 2))),
                keyID: statement.optionalText(at: 3))
        }.first
    }

    /// Copies the current revision into history (when the policy keeps any) and prunes to the policy.
    private func moveCurrentToHistory(collection: String, key: String) throws(HangarError) {
        let arguments: [SQLiteValue] = [.text(collection), .text(key)]
        switch store.configuration.options(for: collection).history {
        case .keepNone:
            try execute(
                StoreSQL.deleteHistory, arguments, collection: collection, key: key)
        case .keepAll:
            try copyCurrentToHistory(arguments, collection: collection, key: key)
        case .keepLast(let count):
            try copyCurrentToHistory(arguments, collection: collection, key: key)
            try execute(
                StoreSQL.pruneHistory, arguments + [.integer(Int64(max(0, count)))], collection: collection, key: key)
        }
    }

    private func copyCurrentToHistory(_ arguments: [SQLiteValue], collection: String, key: String) throws(HangarError) {
        try execute(
            StoreSQL.copyCurrentToHistory, arguments, collection: collection, key: key)
    }

    /// The class tag of the stored document (for the change a delete records).
    private func currentClassTag(collection: String, key: String) throws(HangarError) -> String? {
        try query(
            StoreSQL.currentClassTag, [.text(collection), .text(key)], collection: collection, key: key
        ) { $0.optionalText(at: 0) }.first ?? nil
    }

    // MARK: The change feed

    /// The feed as this transaction has advanced it: the last sequence given, this transaction's id (the
    /// sequence of its first change), the last sequence pruned.
    private struct FeedState {
        var lastSequence: Int
        let transaction: Int
        let prunedThrough: Int
    }

    /// Records `key` at `revision` (for a delete, the revision being deleted) as the next change. The next
    /// sequence is one after the largest recorded, read under the writer's lock: a failed record or a
    /// rolled-back transaction leaves no gap.
    private func recordChange(
        _ kind: Change.Kind, collection: String, key: String, revision: Int, version: DocumentVersion,
        classTag: String?
    ) throws(HangarError) {
        let state: FeedState
        if let feed {
            state = feed
        } else {
            let row = try query(StoreSQL.changeCounter, []) { statement in
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
            StoreSQL.recordChange,
            [
                .integer(Int64(sequence)), .integer(Int64(state.transaction)), .text(kind.rawValue),
                .real(Date().timeIntervalSince1970), .text(collection), .text(key), .integer(Int64(revision)),
                .integer(Int64(version.major)), .integer(Int64(version.minor)), classTag.map(SQLiteValue.text) ?? .null,
            ], collection: collection, key: key)
        var next = state
        next.lastSequence = sequence
        feed = next
        if let directory = store.configuration.options(for: collection).mirrorDirectory {
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
                    StoreSQL.firstChangeNotOlderThan, [.integer(Int64(boundary)), .real(now - maximumAge)]
                ) { (sequence: Int($0.int64(at: 0)), committedAt: $0.double(at: 1)) }.first
                boundary = max(boundary, (firstKept?.sequence ?? feed.lastSequence + 1) - 1)
                // Nothing kept can be too old before the first change kept is.
                store.changePruning.scheduleAgeCheck(at: (firstKept?.committedAt ?? now) + maximumAge)
            }
        }
        guard boundary > feed.prunedThrough else { return }
        try execute(StoreSQL.pruneChanges, [.integer(Int64(boundary))])
        try execute(StoreSQL.setPrunedThrough, [.integer(Int64(boundary))])
    }
}
