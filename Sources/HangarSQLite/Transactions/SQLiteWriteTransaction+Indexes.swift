import Foundation
import Hangar
import PropertyList

extension SQLiteWriteTransaction {
    /// Checks `entries` of unique indexes against the other keys' entries; returns `entries`, or throws
    /// ``HangarError/duplicate`` when a unique index already holds one of them for another key. Writes nothing.
    func checkUnique(_ entries: [IndexEntry], collection: String, key: String) throws(HangarError) -> [IndexEntry] {
        for entry in entries where entry.unique {
            try checkUnique(entry.name, entry.value, collection: collection, key: key)
        }
        return entries
    }

    func checkUnique(_ name: String, _ value: [UInt8], collection: String, key: String) throws(HangarError) {
        let other = try query(
            SQLiteSQL.otherKeyWithIndexValue,
            [.text(collection), .text(name), .blob(value), .text(key)], collection: collection, key: key
        ) { $0.text(at: 0) }.first
        guard let other else { return }
        throw DocumentRules.duplicate(index: name, otherKey: other, collection: collection, key: key)
    }

    /// Replaces the index entries of `key` with `entries`. Indexes of the collection this store does not
    /// declare lose their entry for `key`, so they are dropped whole (the catalog forgets them) and rebuilt
    /// by the next store opened with their definition: an index is complete or absent, never stale.
    func replaceIndexEntries(_ entries: [IndexEntry], collection: String, key: String) throws(HangarError) {
        // A collection with no index built holds no entries: nothing to remove, nothing to add.
        guard try !indexesBuilt(for: collection).isEmpty else { return }
        try execute(
            SQLiteSQL.deleteIndexEntriesOfKey, [.text(collection), .text(key)],
            collection: collection, key: key)
        for entry in entries {
            try execute(
                SQLiteSQL.insertIndexEntry,
                [.text(collection), .text(entry.name), .blob(entry.value), .text(key)], collection: collection,
                key: key)
        }
    }

    /// The indexes built for `collection`, after dropping those this store does not declare (a store without
    /// the definitions cannot keep them up to date, so it leaves none stale), read once a transaction.
    private func indexesBuilt(for collection: String) throws(HangarError) -> Set<ExactString> {
        if let known = indexesBuiltByCollection[ExactString(collection)] { return known }
        let declared = Set(store.configuration.options(for: collection).indexes.map { ExactString($0.name) })
        var built = Set(
            try query(SQLiteSQL.builtIndexNames, [.text(collection)], collection: collection) {
                ExactString($0.text(at: 0))
            })
        for name in built where !declared.contains(name) {
            try dropIndex(name.string, in: collection)
            built.remove(name)
        }
        indexesBuiltByCollection[ExactString(collection)] = built
        return built
    }

    /// Removes an index's entries and its catalog row.
    func dropIndex(_ name: String, in collection: String) throws(HangarError) {
        try execute(
            SQLiteSQL.deleteIndexEntriesOfIndex, [.text(collection), .text(name)],
            collection: collection)
        try execute(
            SQLiteSQL.forgetIndex, [.text(collection), .text(name)],
            collection: collection)
        indexesBuiltByCollection[ExactString(collection)]?.remove(ExactString(name))
    }

    /// Drops the indexes of `collection` not declared (or declared differently), builds the declared ones
    /// not built (all of them when `rebuildAll`) over the stored documents, and records them in the catalog.
    func reconcileIndexes(
        in collection: String, rebuildAll: Bool, progress: (@Sendable (IndexBuildProgress) -> Void)?
    ) throws(HangarError) {
        let (toDrop, toBuild) = DocumentRules.indexReconciliation(
            built: try builtIndexes(in: collection), declared: store.configuration.options(for: collection).indexes,
            rebuildAll: rebuildAll)
        for name in toDrop { try dropIndex(name, in: collection) }
        guard !toBuild.isEmpty else { return }
        let keys = try query(
            SQLiteSQL.keys, [.text(collection)], collection: collection
        ) { $0.text(at: 0) }
        let names = toBuild.map(\.name)
        for (done, key) in keys.enumerated() {
            // A document whose bytes cannot be decoded has nothing to index (and is reported by every read
            // of it); it does not stop the others from being indexed.
            guard let stored = try document(in: collection, key: key),
                let content = (try? stored.envelope())?.dictionaryValue
            else { continue }
            for entry in try checkUnique(DocumentRules.indexEntries(content, toBuild), collection: collection, key: key)
            {
                try execute(
                    SQLiteSQL.insertIndexEntry,
                    [.text(collection), .text(entry.name), .blob(entry.value), .text(key)], collection: collection,
                    key: key)
            }
            if (done + 1) % 500 == 0 || done + 1 == keys.count {
                progress?(
                    IndexBuildProgress(collection: collection, indexes: names, indexed: done + 1, total: keys.count))
            }
        }
        for index in toBuild {
            try execute(
                SQLiteSQL.recordBuiltIndex,
                [.text(collection), .text(index.name), .text(index.fingerprint)], collection: collection)
        }
        indexesBuiltByCollection[ExactString(collection)] = nil
        store.instruments.indexesBuilt(names, collection: collection, documents: keys.count)
    }
}

extension SQLiteReadTransaction {
    /// The indexes the catalog says are built for `collection`, by name, with their fingerprints.
    func builtIndexes(in collection: String) throws(HangarError) -> [ExactString: String] {
        // The catalog's primary key is (collection, name), compared by bytes: one row a name.
        Dictionary(
            try query(SQLiteSQL.builtIndexes, [.text(collection)], collection: collection) {
                (ExactString($0.text(at: 0)), $0.text(at: 1))
            },
            uniquingKeysWith: { first, _ in first })
    }
}

extension SQLiteStore {
    /// Brings the indexes of every configured collection in line with their definitions (on open).
    func reconcileIndexes() throws(HangarError) {
        let collections = configuration.listedCollections
        let needed: Bool
        do {
            needed = try read { transaction in
                try collections.contains { collection throws(HangarError) in
                    !DocumentRules.indexesMatch(
                        built: try transaction.builtIndexes(in: collection),
                        declared: self.configuration.options(for: collection).indexes)
                }
            }
        } catch {
            throw Self.storeError(error)
        }
        guard needed else { return }
        try writeRethrowingHangarErrors { transaction throws(HangarError) in
            for collection in collections {
                try transaction.reconcileIndexes(
                    in: collection, rebuildAll: false, progress: self.configuration.indexProgress)
            }
        }
    }

    /// Rebuilds every index declared for `collection` from its stored documents, in one transaction.
    /// A unique index that finds two documents with one value fails with ``HangarError/duplicate`` and
    /// changes nothing.
    public func reindex(_ collection: String, progress: (@Sendable (IndexBuildProgress) -> Void)? = nil)
        throws(HangarError)
    {
        try writeRethrowingHangarErrors { transaction throws(HangarError) in
            try transaction.reconcileIndexes(in: collection, rebuildAll: true, progress: progress)
        }
    }

    /// `write`, for a body that throws only store errors.
    func writeRethrowingHangarErrors<Result>(_ body: (SQLiteWriteTransaction) throws(HangarError) -> Result)
        throws(HangarError) -> Result
    {
        do {
            return try write { transaction in try body(transaction) }
        } catch {
            throw Self.storeError(error)
        }
    }

    static func storeError(_ error: any Error) -> HangarError {
        (error as? HangarError) ?? HangarError(.database, "\(error)")
    }
}
