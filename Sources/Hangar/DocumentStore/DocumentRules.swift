import Foundation
import Logging
package import PropertyList

/// The rules of reading and saving documents that do not depend on the engine: every engine's transactions
/// read and write their rows and call these for every decision, so the SQLite and PostgreSQL stores behave
/// alike by construction.
package enum DocumentRules {
    // MARK: Reading

    /// Decodes a stored document as a `Document`, migrating it in memory when it is older. Counts the load
    /// and any migration, and logs a document that cannot be read (unless `reportingFailure` is false: the
    /// caller quarantines it, ``quarantine(_:error:configuration:)``, which reports it).
    package static func decode<Document: VersionedDocument>(
        _ stored: StoredDocument, as type: Document.Type, configuration: StoreConfiguration,
        reportingFailure: Bool = true
    ) throws(HangarError) -> Loaded<Document> {
        let instruments = configuration.instruments
        let loaded: Loaded<Document>
        do {
            loaded = try decoded(stored, as: type, configuration: configuration)
        } catch {
            if reportingFailure {
                instruments?.unreadable(
                    collection: stored.collection, key: stored.key, error: error, quarantined: false)
            }
            throw error
        }
        guard let instruments else { return loaded }
        instruments.count("hangar_loads_total", collection: stored.collection)
        if loaded.wasMigrated {
            instruments.migrated(
                collection: stored.collection, key: stored.key, from: loaded.storedVersion,
                to: Document.format.current)
        }
        return loaded
    }

    private static func decoded<Document: VersionedDocument>(
        _ stored: StoredDocument, as _: Document.Type, configuration: StoreConfiguration
    ) throws(HangarError) -> Loaded<Document> {
        if readsStoredBytesLazily,
            let loaded = try lazilyDecoded(stored, as: Document.self, configuration: configuration)
        {
            return loaded
        }
        return try treeDecoded(stored, as: Document.self, configuration: configuration)
    }

    /// Decodes the stored envelope whole, opens it (migrating an older one) and reads the model from the tree.
    static func treeDecoded<Document: VersionedDocument>(
        _ stored: StoredDocument, as _: Document.Type, configuration: StoreConfiguration
    ) throws(HangarError) -> Loaded<Document> {
        let envelope = try stored.envelope()
        let opened: OpenedDocument
        do {
            opened = try Document.format.open(
                envelope, name: "\(stored.collection)/\(stored.key)", observer: configuration.migrationObserver)
        } catch {
            throw HangarError(
                error.code == .newerMajor ? .newerMajor : .undecodable,
                error.code == .newerMajor ? "Not read" : "The envelope is not readable",
                collection: stored.collection, key: stored.key, underlying: error)
        }
        let value: Document
        do {
            value = try configuration.registry.decode(Document.self, from: .dictionary(opened.content))
        } catch {
            throw HangarError(
                .undecodable, "The document is not a valid \(Document.self)", collection: stored.collection,
                key: stored.key, underlying: error)
        }
        let current = Document.format.current
        return Loaded(
            value: value, collection: stored.collection, key: stored.key, revision: stored.revision,
            storedVersion: opened.storedVersion, createdAt: stored.createdAt, updatedAt: stored.updatedAt,
            wasMigrated: opened.storedVersion.major < current.major
                || (opened.storedVersion.major == current.major && opened.storedVersion.minor < current.minor))
    }

    /// Decodes stored documents, quarantining (never skipping) those that cannot be read.
    package static func batch<Document: VersionedDocument>(
        _ stored: [StoredDocument], as type: Document.Type, configuration: StoreConfiguration
    ) -> DocumentBatch<Document> {
        var batch = DocumentBatch<Document>(loaded: [], quarantined: [])
        for document in stored {
            do {
                batch.loaded.append(
                    try decode(document, as: type, configuration: configuration, reportingFailure: false))
            } catch {
                batch.quarantined.append(
                    quarantine(document.collection, key: document.key, error: error, configuration: configuration))
            }
        }
        return batch
    }

    /// A document set aside, with why, by a batch read or an upgrade: counted and logged (its collection,
    /// key and error code, never its content).
    package static func quarantine(
        _ collection: String, key: String, error: HangarError, configuration: StoreConfiguration
    ) -> QuarantinedDocument {
        configuration.instruments?.unreadable(collection: collection, key: key, error: error, quarantined: true)
        return QuarantinedDocument(collection: collection, key: key, error: error)
    }

    /// Logs a finished (or stopped) bulk upgrade of `collection`: how many documents it upgraded and
    /// quarantined, how many are newer, and how long it took.
    package static func upgraded(
        _ report: UpgradeReport, collection: String, since start: ContinuousClock.Instant,
        configuration: StoreConfiguration
    ) {
        guard let instruments = configuration.instruments else { return }
        instruments.logger.info(
            "Collection upgraded",
            metadata: [
                "collection": .string(collection), "upgraded": .stringConvertible(report.upgraded.count),
                "quarantined": .stringConvertible(report.quarantined.count),
                "newer": .stringConvertible(report.newer.count),
                "duration_ms": .stringConvertible(StoreInstruments.milliseconds(ContinuousClock.now - start)),
            ])
    }

    // MARK: Encryption at rest

    /// Opens a body sealed with `keyID` for `context`; without the key, ``HangarError/keyUnavailable``.
    package static func open(
        _ sealed: [UInt8], keyID: String, encryption: (any DocumentEncryption)?, context: EncryptionContext
    ) throws(HangarError) -> [UInt8] {
        try opener(of: keyID, in: encryption, collection: context.collection, key: context.key)
            .opening(sealed, keyID: keyID, context: context)
    }

    /// Throws ``HangarError/keyUnavailable`` unless a stored body sealed with `keyID` (nil: plaintext) can be opened:
    /// a write never replaces a document whose key the store was not given.
    package static func checkKeyAvailable(
        _ keyID: String?, configuration: StoreConfiguration, collection: String, key: String
    ) throws(HangarError) {
        guard let keyID else { return }
        _ = try opener(of: keyID, in: configuration.encryption, collection: collection, key: key)
    }

    /// `encryption` when it can open bodies sealed with `keyID`; otherwise ``HangarError/keyUnavailable``.
    private static func opener(
        of keyID: String, in encryption: (any DocumentEncryption)?, collection: String, key: String
    ) throws(HangarError) -> any DocumentEncryption {
        guard let encryption, encryption.canOpen(keyID: keyID) else {
            throw HangarError.keyUnavailable(keyID, collection: collection, key: key)
        }
        return encryption
    }

    // MARK: Saving a model

    /// Whether saving a `format` document over one stored at `storedVersion` must read the stored content
    /// first: a newer minor of the same major, whose keys this code does not know are kept.
    package static func keepsStoredKeys(storedVersion: DocumentVersion?, format: DocumentFormat) -> Bool {
        guard let storedVersion else { return false }
        return storedVersion.major == format.current.major && storedVersion.minor > format.current.minor
    }

    /// The envelope and version a model is saved as: its representation, checked for reserved keys, with the
    /// keys of `stored` (a newer minor, per ``keepsStoredKeys(storedVersion:format:)``) it does not know added,
    /// at that newer minor.
    package static func modelEnvelope<Document: VersionedDocument>(
        _ document: Document, stored: StoredDocument?, registry: ClassRegistry, collection: String, key: String
    ) throws(HangarError) -> (envelope: PropertyList, version: DocumentVersion) {
        let format = Document.format
        var kept: PropertyList.Dictionary = [:]
        var version = format.current
        if let stored, keepsStoredKeys(storedVersion: stored.version, format: format),
            case .dictionary(var content) = try stored.envelope()
        {
            content[DocumentFormat.majorKey] = nil
            content[DocumentFormat.minorKey] = nil
            do {
                kept = try DocumentCoding.unknownKeys(of: content, as: Document.self, registry: registry)
            } catch {
                throw HangarError(
                    .undecodable, "The stored newer-minor document cannot be read to keep its keys",
                    collection: collection, key: key, underlying: error)
            }
            version = stored.version
        }
        guard case .dictionary(var content) = registry.encode(document) else {
            throw HangarError(
                .invalidDocument,
                "\(Document.self) is represented as a non-dictionary; a document must be a dictionary",
                collection: collection, key: key)
        }
        try checkReservedKeys(
            content, isRegisteredClass: registry.tag(for: type(of: document)) != nil, type: "\(Document.self)",
            collection: collection, key: key)
        for (name, value) in kept where content[name] == nil { content[name] = value }
        return (format.seal(content, version: version), version)
    }

    /// The content keys a model may not write: the envelope's version keys, the key exports carry
    /// (``StoreFileNames/keyMetadataKey``), and `"class"` unless the registry tags the model's type.
    package static func checkReservedKeys(
        _ content: PropertyList.Dictionary, isRegisteredClass: Bool, type: String, collection: String, key: String
    ) throws(HangarError) {
        var reserved = [DocumentFormat.majorKey, DocumentFormat.minorKey, StoreFileNames.keyMetadataKey]
        if !isRegisteredClass { reserved.append("class") }
        for name in reserved where content[name] != nil {
            var error = HangarError(
                .reservedKey,
                "\(type)'s representation uses the reserved key \"\(name)\"; it could not be read back, so it was not saved",
                collection: collection, key: key)
            error.field = name
            throw error
        }
    }

    // MARK: Saving an envelope

    /// The version an envelope declares; a non-envelope is ``HangarError/invalidDocument``.
    package static func envelopeVersion(_ envelope: PropertyList, collection: String, key: String)
        throws(HangarError) -> DocumentVersion
    {
        do {
            return try DocumentFormat.envelopeVersion(of: envelope)
        } catch {
            throw HangarError(
                .invalidDocument, "Not a document envelope", collection: collection, key: key, underlying: error)
        }
    }

    /// Checks an envelope saved as it is: its version, no reserved export key, and not of a newer major than
    /// the collection's format reads (unless `overwritingNewerMajor`). Returns its version and the major the
    /// save may overwrite up to.
    package static func checkEnvelope(
        _ envelope: PropertyList, configuration: StoreConfiguration, collection: String, key: String,
        overwritingNewerMajor: Bool
    ) throws(HangarError) -> (version: DocumentVersion, readableMajor: Int) {
        let options = configuration.options(for: collection)
        let format = options.format
        let version = try envelopeVersion(envelope, collection: collection, key: key)
        if envelope.dictionaryValue?[StoreFileNames.keyMetadataKey] != nil {
            var error = HangarError(
                .reservedKey, "The envelope uses the reserved key \"\(StoreFileNames.keyMetadataKey)\"",
                collection: collection, key: key)
            error.field = StoreFileNames.keyMetadataKey
            throw error
        }
        if let format, version.major > format.current.major, !overwritingNewerMajor {
            throw HangarError(
                .newerMajor,
                "The document's major version \(version.major) is newer than this collection reads (\(format.current.major))",
                collection: collection, key: key)
        }
        if let format, let model = options.model, version.major <= format.current.major {
            try checkModel(
                envelope, model, format: format, configuration: configuration, collection: collection, key: key)
        }
        return (version, format?.current.major ?? version.major)
    }

    /// Checks an envelope against the collection's declared model (``CollectionOptions/model``): opened with the
    /// format (migrated in memory), then read by the model through the registry. Its error, with the collection
    /// and key, otherwise.
    static func checkModel(
        _ envelope: PropertyList, _ model: DocumentModel, format: DocumentFormat, configuration: StoreConfiguration,
        collection: String, key: String
    ) throws(HangarError) {
        do {
            let opened = try format.open(envelope, name: "\(collection)/\(key)")
            try model.check(opened.content, registry: configuration.registry)
        } catch {
            throw error.naming(collection: collection, key: key)
        }
    }

    // MARK: Indexes

    /// The entries `indexes` hold for an envelope's content (its version keys left out). NaN is never indexed.
    package static func indexEntries(_ content: PropertyList.Dictionary, _ indexes: [IndexDefinition]) -> [IndexEntry] {
        guard !indexes.isEmpty else { return [] }
        var body = content
        body[DocumentFormat.majorKey] = nil
        body[DocumentFormat.minorKey] = nil
        var entries: [IndexEntry] = []
        for index in indexes {
            for encoded in index.encodedValues(body) {
                entries.append(IndexEntry(name: index.name, value: encoded, unique: index.unique))
            }
        }
        return entries
    }

    /// Whether the indexes a catalog says are built (name → fingerprint) are exactly the `declared` ones.
    /// Names are compared by their bytes: two canonically equivalent index names are two indexes.
    package static func indexesMatch(built: [ExactString: String], declared: [IndexDefinition]) -> Bool {
        built.count == declared.count && declared.allSatisfy { built[$0.name] == $0.fingerprint }
    }

    /// What reconciling a collection's indexes does: drop the built ones not declared or declared differently
    /// (all of them when `rebuildAll`), and build the declared ones not built as declared.
    package static func indexReconciliation(
        built: [ExactString: String], declared: [IndexDefinition], rebuildAll: Bool
    ) -> (drop: [String], build: [IndexDefinition]) {
        let fingerprints = Dictionary(
            declared.map { (ExactString($0.name), $0.fingerprint) }, uniquingKeysWith: { first, _ in first })
        let drop = built.filter { rebuildAll || fingerprints[$0.key] != $0.value }.keys.sorted().map(\.string)
        return (drop, declared.filter { rebuildAll || built[$0.name] != $0.fingerprint })
    }

    /// The revision a write gives: one more than any the key ever had (revisions only grow, across deletes,
    /// history pruning and restores).
    package static func nextRevision(current: Int?, lastEver: Int) -> Int {
        max(current ?? 0, lastEver) + 1
    }

    /// Throws ``HangarError/conflict`` unless the stored revision (`actual`, nil or 0 for none) is `expected`.
    package static func checkExpected(
        _ expected: Int?, actual: Int?, collection: String, key: String, instruments: StoreInstruments?
    ) throws(HangarError) {
        guard let expected else { return }
        let actual = actual ?? 0
        guard expected == actual else {
            instruments?.conflict(collection: collection, key: key)
            throw HangarError(
                .conflict,
                "Expected revision \(expected), but the stored revision is \(actual); nothing was written",
                collection: collection, key: key)
        }
    }

    /// How long an update waits after its `attempt`th conflict, in microseconds: random and growing (up to
    /// 32 ms), so writers that collided do not collide again in step and a loser gets its turn under load.
    package static func retryDelayMicroseconds(afterAttempt attempt: Int) -> Int {
        Int.random(in: 0...(250 << min(attempt, 7)))
    }

    /// The error an update gets when every one of its `attempts` met a conflict.
    package static func contention(attempts: Int, collection: String, key: String) -> HangarError {
        HangarError(
            .contention, "Another writer saved the document first on each of \(attempts) attempts; nothing was saved",
            collection: collection, key: key)
    }

    /// The error a unique index's second holder of one value gets.
    package static func duplicate(index: String, otherKey: String, collection: String, key: String) -> HangarError {
        var error = HangarError(
            .duplicate, "The unique index \(index) already holds this value for \(otherKey); nothing was written",
            collection: collection, key: key)
        error.index = index
        error.otherKey = otherKey
        return error
    }

    /// Collections and keys are non-empty and hold no NUL.
    package static func checkName(_ name: String, what: String) throws(HangarError) {
        guard !name.isEmpty, !name.utf8.contains(0) else {
            throw HangarError(.invalidName, "A \(what) must be non-empty text without NUL characters")
        }
    }

    /// The ``HangarError/changesTooOld`` error for a follower at `sequence` when changes through
    /// `prunedThrough` are gone.
    package static func changesTooOld(since sequence: Int, prunedThrough: Int) -> HangarError {
        var error = HangarError(
            .changesTooOld,
            "Changes after sequence \(sequence) are no longer kept; the oldest kept is \(prunedThrough + 1)")
        error.oldestRetainedSequence = prunedThrough + 1
        return error
    }
}
