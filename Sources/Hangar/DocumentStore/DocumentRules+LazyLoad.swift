import PropertyList

extension DocumentRules {
    /// Whether loads of ``DictionaryReadable`` documents read the stored bytes lazily. Off: measured on the
    /// benchmark's pilots (`hangar-bench --filter store-load`, 2026-11-26), the whole-file check the lazy path
    /// needs to fail exactly as the tree path fails costs about what decoding the tree costs, and the lookups in
    /// the stored bytes cost more than the tree's, so the lazy load took about twice the tree load's time.
    /// ``LazyReadTests`` holds both paths to the same results either way.
    static let readsStoredBytesLazily = false

    /// A ``DictionaryReadable`` document stored at the current version, read straight from its bytes
    /// (``BinaryPropertyListMap``); `nil` when the tree path must read it (another version, a top level that is
    /// not a dictionary). Errors are those of the tree path: the same checks, in the same order.
    static func lazilyDecoded<Document: VersionedDocument>(
        _ stored: StoredDocument, as _: Document.Type, configuration: StoreConfiguration
    ) throws(HangarError) -> Loaded<Document>? {
        guard Document.self is any DictionaryReadable.Type else { return nil }
        let body = try stored.plaintextBody()
        let map: BinaryPropertyListMap
        do {
            map = try BinaryPropertyListMap(body)
        } catch {
            throw stored.undecodableBody(error)
        }
        let root = LazyValue(map: map, object: map.root)
        guard root.kind == .dictionary else { return nil }
        // The version as `DocumentFormat.open` reads it: from the version keys alone.
        var versionKeys: PropertyList.Dictionary = [:]
        for key in [DocumentFormat.majorKey, DocumentFormat.minorKey] {
            versionKeys[key] = try root.child(key)?.materialized()
        }
        let format = Document.format
        let version: DocumentVersion
        do {
            version = try format.version(of: .dictionary(versionKeys))
        } catch {
            return nil  // The tree path reports it, as it always has.
        }
        guard version == format.current else { return nil }
        let value: Document
        do {
            value = try configuration.registry.decode(
                Document.self, lazy: LazyValue(map: map, object: map.root, hidesVersionKeys: true))
        } catch {
            throw HangarError(
                .undecodable, "The document is not a valid \(Document.self)", collection: stored.collection,
                key: stored.key, underlying: error)
        }
        return Loaded(
            value: value, collection: stored.collection, key: stored.key, revision: stored.revision,
            storedVersion: version, createdAt: stored.createdAt, updatedAt: stored.updatedAt, wasMigrated: false)
    }
}
