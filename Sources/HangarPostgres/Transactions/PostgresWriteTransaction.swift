import Foundation
public import Hangar
import PostgresNIO
public import PropertyList

/// What a ``PostgresStore`` write closure is handed: reads, plus saves and deletes committed together when the
/// closure returns. The rules are the SQLite store's, decided in one place (`DocumentRules`); this type reads
/// and writes the rows. Use it only inside the closure.
public final class PostgresWriteTransaction: PostgresReadTransaction, DocumentWriter {
    /// Per collection, the indexes built for it once this transaction has read the catalog; names compared by
    /// their bytes (two canonically equivalent collection names are two collections).
    var indexesBuiltByCollection: [ExactString: Set<ExactString>] = [:]
    /// Set for the transaction of a single write whose statement handed it back (``PostgresStore/perform(_:inTransactionOtherwise:)``):
    /// its write goes statement by statement, without calling `write_document` again.
    var writesStatementByStatement = false

    // MARK: Saving

    /// Saves `document` under `key` and returns its new revision
    /// (``Hangar/DocumentWriter/save(_:key:in:expectedRevision:overwritingNewerMajor:)``).
    @discardableResult
    public func save<Document: VersionedDocument>(
        _ document: Document, key: String, in collection: String = Document.collection, expectedRevision: Int? = nil,
        overwritingNewerMajor: Bool = false
    ) async throws(HangarError) -> Int {
        checkValid()
        try DocumentRules.checkName(collection, what: "collection")
        try DocumentRules.checkName(key, what: "key")
        // The plan as if no newer minor were stored: `write_document` hands the row back when one is.
        func plan(keeping stored: StoredDocument?) throws(HangarError) -> WritePlan {
            let (envelope, version) = try DocumentRules.modelEnvelope(
                document, stored: stored, registry: configuration.registry, collection: collection, key: key)
            return try DocumentRules.planSave(
                envelope, version: version, expectedRevision: expectedRevision,
                readableMajor: Document.format.current.major, overwritingNewerMajor: overwritingNewerMajor,
                configuration: configuration, collection: collection, key: key)
        }
        let current: CurrentRow?
        let lastEver: Int
        if writesInOneStatement {
            switch try await writeInOneStatement(try plan(keeping: nil), refusingNewerMinor: true) {
            case .written(let resolved, _): return resolved?.revision ?? 0
            case .handedBack(let row, let last): (current, lastEver) = (row, last)
            }
        } else {
            (current, lastEver) = try await lockCurrentRowForSave(collection: collection, key: key)
        }
        let stored =
            DocumentRules.keepsStoredKeys(storedVersion: current?.version, format: Document.format)
            ? try await self.document(in: collection, key: key) : nil
        return try await apply(plan(keeping: stored), current: current, lastEver: lastEver)?.revision ?? 0
    }

    /// Saves an envelope as it is under `key` and returns its new revision
    /// (``Hangar/DocumentWriter/save(envelope:key:in:expectedRevision:overwritingNewerMajor:)``).
    @discardableResult
    public func save(
        envelope: PropertyList, key: String, in collection: String, expectedRevision: Int? = nil,
        overwritingNewerMajor: Bool = false
    ) async throws(HangarError) -> Int {
        checkValid()
        let plan = try DocumentRules.planEnvelopeSave(
            envelope, expectedRevision: expectedRevision, overwritingNewerMajor: overwritingNewerMajor,
            configuration: configuration, collection: collection, key: key)
        return try await apply(plan)?.revision ?? 0
    }

    // MARK: Deleting and restoring

    /// Deletes the document at `key`; returns whether there was one
    /// (``Hangar/DocumentWriter/delete(key:in:expectedRevision:overwritingNewerMajor:)``).
    @discardableResult
    public func delete(
        key: String, in collection: String, expectedRevision: Int? = nil, overwritingNewerMajor: Bool = false
    ) async throws(HangarError) -> Bool {
        checkValid()
        let plan = try DocumentRules.planDelete(
            key: key, in: collection, expectedRevision: expectedRevision,
            overwritingNewerMajor: overwritingNewerMajor, configuration: configuration)
        return try await apply(plan) != nil
    }

    /// Saves a kept earlier revision again, as a new revision; returns the new revision number. Like an envelope
    /// save, a stored document of a newer major is not replaced (``HangarError/newerMajor``) unless
    /// `overwritingNewerMajor`.
    @discardableResult
    public func restore(
        key: String, in collection: String, revision: Int, overwritingNewerMajor: Bool = false
    ) async throws(HangarError) -> Int {
        checkValid()
        guard let old = try await document(in: collection, key: key, revision: revision) else {
            throw HangarError(.notFound, "Revision \(revision) is not kept", collection: collection, key: key)
        }
        let plan = try DocumentRules.planRestore(
            old, overwritingNewerMajor: overwritingNewerMajor, configuration: configuration)
        return try await apply(plan)?.revision ?? 0
    }

    // MARK: Applying a plan

    /// Applies `plan` (``Hangar/WritePlan``) to the stored row in PostgreSQL's SQL, under the key's lock (taken
    /// here with the row's read, unless the caller did); returns what was written, `nil` for a delete of
    /// nothing. Unless the caller read the row, the plan goes to `write_document` first (one round trip), and
    /// statement by statement only when the function hands the row back.
    private func apply(_ plan: WritePlan, current known: CurrentRow?? = nil, lastEver knownLastEver: Int = 0)
        async throws(HangarError) -> ResolvedWrite?
    {
        let (collection, key) = (plan.collection, plan.key)
        var current: CurrentRow?
        var lastEver = knownLastEver
        if let known {
            current = known
        } else if writesInOneStatement {
            switch try await writeInOneStatement(plan, refusingNewerMinor: false) {
            case .written(let resolved, _): return resolved
            case .handedBack(let row, let last): (current, lastEver) = (row, last)
            }
        } else {
            (current, lastEver) = try await lockCurrentRowForSave(collection: collection, key: key)
        }
        // The last revision ever was read with the current row, under the key's lock: nothing changed it since.
        let resolved = try DocumentRules.resolve(
            plan, current: current, lastRevision: { lastEver }, configuration: configuration,
            instruments: store.engine.instruments)
        guard let resolved else { return nil }
        // Checked for unique values before anything is written: a duplicate writes nothing.
        for entry in resolved.indexEntries where entry.unique {
            try await checkUnique(entry.name, entry.value, collection: collection, key: key)
        }
        if resolved.replacesCurrent {
            try await moveCurrentToHistory(collection: collection, key: key, policy: resolved.history)
        }
        if let body = resolved.body, let content = plan.content {
            var row = binds(collection, key)
            row.append(content.classTag)
            row.append(Int64(content.version.major))
            row.append(Int64(content.version.minor))
            row.append(Int64(resolved.revision))
            row.append(Date().timeIntervalSince1970)
            row.append(PostgresBytes.bind(body.bytes))
            row.append(body.keyID)
            // Another writer creating the key at once loses the insert (a unique violation): the engine runs this
            // transaction again, and it then finds the key. A stored document's revision is its key's largest: only
            // a delete records it in `key_revisions`.
            try await transaction.execute(
                resolved.replacesCurrent ? sql.documents.updateDocument : sql.documents.insertDocument, row)
            try await replaceIndexEntries(resolved.indexEntries, collection: collection, key: key)
        } else {
            // The revision outlives the document (and a history the policy prunes): it is never reused.
            var last = binds(collection, key)
            last.append(Int64(resolved.revision))
            try await transaction.execute(sql.history.setLastRevision, last)
            try await transaction.execute(sql.documents.deleteDocument, binds(collection, key))
            try await transaction.execute(sql.indexes.deleteIndexEntriesOfKey, binds(collection, key))
        }
        let change = resolved.change
        transaction.changes.record(
            change.kind, collection: collection, key: key, revision: change.revision, version: change.version,
            classTag: change.classTag)
        return resolved
    }

    /// Takes the key's lock for the rest of the transaction (so a check of its revision and the write that
    /// follows are one step, whether or not the document exists yet), then reads its current row and the last
    /// revision the key ever had (0 for a key never saved) in one statement.
    private func lockCurrentRowForSave(collection: String, key: String) async throws(HangarError) -> (
        CurrentRow?, lastEver: Int
    ) {
        try await transaction.execute(sql.locks.lockKey, binds(collection, key))
        let statement = sql.documents.currentRowAndLastRevision
        let found = try await rows(statement, binds(collection, key)) { row in
            let (revision, major, minor, classTag, keyID, lastEver) = try row.decode(
                (Int64?, Int64?, Int64?, String?, String?, Int64?).self)
            var current: CurrentRow?
            if let revision, let major, let minor {
                current = CurrentRow(
                    revision: Int(revision), version: DocumentVersion(major: Int(major), minor: Int(minor)),
                    classTag: classTag, keyID: keyID)
            }
            return (current, Int(lastEver ?? 0))
        }
        guard let first = found.first else {
            throw HangarError(.database, "A save's read of the current row returned no row", sql: statement)
        }
        return first
    }

    /// Copies the current revision into history (when `policy` keeps any) and prunes to the policy.
    private func moveCurrentToHistory(collection: String, key: String, policy: HistoryPolicy)
        async throws(HangarError)
    {
        switch policy {
        case .keepNone:
            try await transaction.execute(sql.history.deleteHistory, binds(collection, key))
        case .keepAll:
            try await transaction.execute(sql.history.copyCurrentToHistory, binds(collection, key))
        case .keepLast(let count):
            try await transaction.execute(sql.history.copyCurrentToHistory, binds(collection, key))
            var values = binds(collection, key)
            values.append(Int64(max(0, count)))
            try await transaction.execute(sql.history.pruneHistory, values)
        }
    }

    // MARK: Indexes

    /// Throws ``Hangar/HangarError/Code/duplicate`` when the unique index `name` holds `value` for another key.
    /// The value's lock is taken first, so two writers saving one value under two keys meet here, one after
    /// the other, and the second finds the first's entry.
    func checkUnique(_ name: String, _ value: [UInt8], collection: String, key: String) async throws(HangarError) {
        var values = binds(collection, name)
        values.append(PostgresBytes.bind(value))
        try await transaction.execute(sql.locks.lockIndexValue, values)
        values.append(key)
        guard let other = try await strings(sql.indexes.otherKeyWithIndexValue, values).first else { return }
        throw DocumentRules.duplicate(index: name, otherKey: other, collection: collection, key: key)
    }

    /// Replaces the index entries of `key` with `entries`; indexes built but not declared by this store are
    /// dropped whole (an index is complete or absent, never stale), as on SQLite.
    private func replaceIndexEntries(_ entries: [IndexEntry], collection: String, key: String)
        async throws(HangarError)
    {
        guard try await !indexesBuilt(for: collection).isEmpty else { return }
        try await transaction.execute(sql.indexes.deleteIndexEntriesOfKey, binds(collection, key))
        for entry in entries {
            var values = binds(collection, entry.name)
            values.append(PostgresBytes.bind(entry.value))
            values.append(key)
            try await transaction.execute(sql.indexes.insertIndexEntry, values)
        }
    }

    /// The indexes built for `collection`, after dropping those this store does not declare; read once a
    /// transaction.
    private func indexesBuilt(for collection: String) async throws(HangarError) -> Set<ExactString> {
        if let known = indexesBuiltByCollection[ExactString(collection)] { return known }
        let declared = Set(configuration.options(for: collection).indexes.map { ExactString($0.name) })
        let names = try await strings(sql.indexes.builtIndexNames, binds(collection))
        var built = Set(names.map { ExactString($0) })
        for name in built where !declared.contains(name) {
            try await dropIndex(name.string, in: collection)
            built.remove(name)
        }
        indexesBuiltByCollection[ExactString(collection)] = built
        return built
    }

    /// Removes an index's entries and its catalog row.
    func dropIndex(_ name: String, in collection: String) async throws(HangarError) {
        try await transaction.execute(sql.indexes.deleteIndexEntriesOfIndex, binds(collection, name))
        try await transaction.execute(sql.indexes.forgetIndex, binds(collection, name))
        indexesBuiltByCollection[ExactString(collection)]?.remove(ExactString(name))
    }
}
