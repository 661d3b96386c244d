import Foundation
public import Hangar
import PostgresNIO
public import PropertyList

/// What a ``PostgresStore`` write closure is handed: reads, plus saves and deletes committed together when the
/// closure returns. The rules are the SQLite store's, decided in one place (`DocumentRules`); this type reads
/// and writes the rows. Use it only inside the closure.
public final class PostgresWriteTransaction: PostgresReadTransaction, DocumentWriter {
    /// Per collection, the indexes built for it once this transaction has read the catalog.
    var indexesBuiltByCollection: [String: Set<String>] = [:]

    // MARK: Saving

    /// Saves `document` under `key` and returns its new revision, as the SQLite store's
    /// `WriteTransaction.save(_:key:in:expectedRevision:overwritingNewerMajor:)` does.
    @discardableResult
    public func save<Document: VersionedDocument>(
        _ document: Document, key: String, in collection: String = Document.collection, expectedRevision: Int? = nil,
        overwritingNewerMajor: Bool = false
    ) async throws(HangarError) -> Int {
        checkValid()
        try DocumentRules.checkName(collection, what: "collection")
        try DocumentRules.checkName(key, what: "key")
        let (current, lastEver) = try await lockCurrentRowForSave(collection: collection, key: key)
        let stored =
            DocumentRules.keepsStoredKeys(storedVersion: current?.version, format: Document.format)
            ? try await self.document(in: collection, key: key) : nil
        let (envelope, version) = try DocumentRules.modelEnvelope(
            document, stored: stored, registry: configuration.registry, collection: collection, key: key)
        return try await write(
            envelope, version: version, current: current, lastEver: lastEver, collection: collection, key: key,
            expectedRevision: expectedRevision, readableMajor: Document.format.current.major,
            overwritingNewerMajor: overwritingNewerMajor, kind: .save)
    }

    /// Saves an envelope as it is under `key` and returns its new revision, as the SQLite store's
    /// `WriteTransaction.save(envelope:key:in:expectedRevision:overwritingNewerMajor:)` does.
    @discardableResult
    public func save(
        envelope: PropertyList, key: String, in collection: String, expectedRevision: Int? = nil,
        overwritingNewerMajor: Bool = false
    ) async throws(HangarError) -> Int {
        checkValid()
        return try await saveEnvelope(
            envelope, key: key, in: collection, expectedRevision: expectedRevision,
            overwritingNewerMajor: overwritingNewerMajor, kind: .save)
    }

    private func saveEnvelope(
        _ envelope: PropertyList, key: String, in collection: String, expectedRevision: Int?,
        overwritingNewerMajor: Bool, kind: Change.Kind
    ) async throws(HangarError) -> Int {
        try DocumentRules.checkName(collection, what: "collection")
        try DocumentRules.checkName(key, what: "key")
        let (version, readableMajor) = try DocumentRules.checkEnvelope(
            envelope, configuration: configuration, collection: collection, key: key,
            overwritingNewerMajor: overwritingNewerMajor)
        let (current, lastEver) = try await lockCurrentRowForSave(collection: collection, key: key)
        return try await write(
            envelope, version: version, current: current, lastEver: lastEver, collection: collection, key: key,
            expectedRevision: expectedRevision, readableMajor: readableMajor,
            overwritingNewerMajor: overwritingNewerMajor, kind: kind)
    }

    // MARK: Deleting and restoring

    /// Deletes the document at `key`; returns whether there was one. Its last revision joins the history.
    @discardableResult
    public func delete(key: String, in collection: String, expectedRevision: Int? = nil) async throws(HangarError)
        -> Bool
    {
        checkValid()
        try DocumentRules.checkName(collection, what: "collection")
        try DocumentRules.checkName(key, what: "key")
        let current = try await lockCurrentRow(collection: collection, key: key)
        try DocumentRules.checkDelete(
            expectedRevision, actual: current?.revision, collection: collection, key: key,
            instruments: store.engine.instruments)
        guard let current else { return false }
        try await moveCurrentToHistory(collection: collection, key: key)
        transaction.changes.record(
            .delete, collection: collection, key: key, revision: current.revision, version: current.version,
            classTag: current.classTag)
        try await transaction.execute(sql.documents.deleteDocument, binds(collection, key))
        try await transaction.execute(sql.indexes.deleteIndexEntriesOfKey, binds(collection, key))
        return true
    }

    /// Saves a kept earlier revision again, as a new revision; returns the new revision number.
    @discardableResult
    public func restore(key: String, in collection: String, revision: Int) async throws(HangarError) -> Int {
        checkValid()
        guard let old = try await document(in: collection, key: key, revision: revision) else {
            throw HangarError(.notFound, "Revision \(revision) is not kept", collection: collection, key: key)
        }
        return try await saveEnvelope(
            old.envelope(), key: key, in: collection, expectedRevision: nil, overwritingNewerMajor: true,
            kind: .restore)
    }

    // MARK: The one write path

    private func write(
        _ envelope: PropertyList, version: DocumentVersion, current: CurrentRow?, lastEver: Int, collection: String,
        key: String, expectedRevision: Int?, readableMajor: Int?, overwritingNewerMajor: Bool, kind: Change.Kind
    ) async throws(HangarError) -> Int {
        let prepared = try DocumentRules.prepareWrite(
            envelope, current: current.map { ($0.revision, $0.version, $0.keyID) }, expectedRevision: expectedRevision,
            readableMajor: readableMajor, overwritingNewerMajor: overwritingNewerMajor, configuration: configuration,
            collection: collection, key: key, instruments: store.engine.instruments)
        // Checked for unique values before anything is written: a duplicate writes nothing.
        for entry in prepared.indexEntries where entry.unique {
            try await checkUnique(entry.name, entry.value, collection: collection, key: key)
        }
        let now = Date().timeIntervalSince1970
        // The last revision ever was read with the current row, under the key's lock: nothing changed it since.
        let revision = DocumentRules.nextRevision(current: current?.revision, lastEver: lastEver)
        let (body, keyID) = try DocumentRules.storedBody(
            prepared, revision: revision, configuration: configuration, collection: collection, key: key)
        var row = binds(collection, key)
        row.append(prepared.classTag)
        row.append(Int64(version.major))
        row.append(Int64(version.minor))
        row.append(Int64(revision))
        row.append(now)
        row.append(PostgresBytes.bind(body))
        row.append(keyID)
        // The document's row and the key's last revision ($6) are written by one statement.
        if current != nil {
            try await moveCurrentToHistory(collection: collection, key: key)
            try await transaction.execute(sql.documents.updateDocumentSettingLastRevision, row)
        } else {
            // Another writer creating the key at once loses here (a unique violation): the engine runs this
            // transaction again, and it then finds the key.
            try await transaction.execute(sql.documents.insertDocumentSettingLastRevision, row)
        }
        try await replaceIndexEntries(prepared.indexEntries, collection: collection, key: key)
        transaction.changes.record(
            kind, collection: collection, key: key, revision: revision, version: version, classTag: prepared.classTag)
        return revision
    }

    /// What a save needs to know of the stored document.
    struct CurrentRow {
        let revision: Int
        let version: DocumentVersion
        let classTag: String?
        /// The id of the key its body is sealed with (nil: plaintext).
        let keyID: String?
    }

    /// Takes the key's lock for the rest of the transaction (so a check of its revision and the write that
    /// follows are one step, whether or not the document exists yet), then reads its current row.
    private func lockCurrentRow(collection: String, key: String) async throws(HangarError) -> CurrentRow? {
        try await transaction.execute(sql.locks.lockKey, binds(collection, key))
        let statement = sql.documents.currentRow
        return try await rows(statement, binds(collection, key)) { row in
            let (revision, major, minor, classTag, keyID) = try row.decode((Int64, Int64, Int64, String?, String?).self)
            return CurrentRow(
                revision: Int(revision), version: DocumentVersion(major: Int(major), minor: Int(minor)),
                classTag: classTag, keyID: keyID)
        }.first
    }

    /// ``lockCurrentRow(collection:key:)`` for a save: also reads the last revision the key ever had (0 for a
    /// key never saved), in the same statement as the current row, so a save needs one round trip less.
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

    /// Copies the current revision into history (when the policy keeps any) and prunes to the policy.
    private func moveCurrentToHistory(collection: String, key: String) async throws(HangarError) {
        switch configuration.options(for: collection).history {
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
    private func indexesBuilt(for collection: String) async throws(HangarError) -> Set<String> {
        if let known = indexesBuiltByCollection[collection] { return known }
        let declared = Set(configuration.options(for: collection).indexes.map(\.name))
        var built = Set(try await strings(sql.indexes.builtIndexNames, binds(collection)))
        for name in built where !declared.contains(name) {
            try await dropIndex(name, in: collection)
            built.remove(name)
        }
        indexesBuiltByCollection[collection] = built
        return built
    }

    /// Removes an index's entries and its catalog row.
    func dropIndex(_ name: String, in collection: String) async throws(HangarError) {
        try await transaction.execute(sql.indexes.deleteIndexEntriesOfIndex, binds(collection, name))
        try await transaction.execute(sql.indexes.forgetIndex, binds(collection, name))
        indexesBuiltByCollection[collection]?.remove(name)
    }
}
