import Hangar
import PostgresNIO

extension PostgresStore {
    /// Brings the indexes of every configured collection in line with their definitions (on open): drops those
    /// declared differently, builds those not built over the stored documents. Instances opening at once take
    /// turns (an advisory lock), and the later ones find the work done.
    func reconcileIndexes() async throws(HangarError) {
        let collections = configuration.listedCollections
        guard try await indexesDiffer(in: collections) else { return }
        do {
            try await write { transaction in
                try await transaction.transaction.execute(
                    transaction.sql.locks.lockIndexes, transaction.binds(transaction.sql.schema))
                for collection in collections {
                    try await transaction.reconcileIndexes(in: collection)
                }
            }
        } catch {
            throw error as? HangarError ?? HangarError(.database, "\(error)")
        }
    }

    /// Whether the catalog's indexes of `collections` differ from the declared ones (a read, no lock).
    private func indexesDiffer(in collections: [String]) async throws(HangarError) -> Bool {
        guard !collections.isEmpty else { return false }
        do {
            return try await read { transaction in
                for collection in collections {
                    let matches = DocumentRules.indexesMatch(
                        built: try await transaction.builtIndexes(in: collection),
                        declared: configuration.options(for: collection).indexes)
                    if !matches { return true }
                }
                return false
            }
        } catch {
            throw error as? HangarError ?? HangarError(.database, "\(error)")
        }
    }
}

extension PostgresWriteTransaction {
    /// Drops the indexes of `collection` declared differently (or not at all), builds the declared ones not
    /// built over the stored documents, and records them in the catalog.
    func reconcileIndexes(in collection: String) async throws(HangarError) {
        let (toDrop, toBuild) = DocumentRules.indexReconciliation(
            built: try await builtIndexes(in: collection), declared: configuration.options(for: collection).indexes,
            rebuildAll: false)
        for name in toDrop { try await dropIndex(name, in: collection) }
        guard !toBuild.isEmpty else { return }
        let documents = try await documents(in: collection)
        for stored in documents {
            // A document whose bytes cannot be decoded has nothing to index (every read of it reports it).
            guard let content = (try? stored.envelope())?.dictionaryValue else { continue }
            for entry in DocumentRules.indexEntries(content, toBuild) {
                if entry.unique {
                    try await checkUnique(entry.name, entry.value, collection: collection, key: stored.key)
                }
                var values = binds(collection, entry.name)
                values.append(PostgresBytes.bind(entry.value))
                values.append(stored.key)
                try await transaction.execute(sql.indexes.insertIndexEntry, values)
            }
        }
        for index in toBuild {
            try await transaction.execute(
                sql.indexes.recordBuiltIndex, binds(collection, index.name, index.fingerprint))
        }
        indexesBuiltByCollection[ExactString(collection)] = nil
        store.engine.instruments.indexesBuilt(toBuild.map(\.name), collection: collection, documents: documents.count)
    }
}

extension PostgresReadTransaction {
    /// The indexes the catalog says are built for `collection`, by name, with their fingerprints.
    func builtIndexes(in collection: String) async throws(HangarError) -> [ExactString: String] {
        Dictionary(
            try await rows(sql.indexes.builtIndexes, binds(collection)) { row in
                let (name, fingerprint) = try row.decode((String, String).self)
                return (ExactString(name), fingerprint)
            },
            uniquingKeysWith: { first, _ in first })
    }
}
