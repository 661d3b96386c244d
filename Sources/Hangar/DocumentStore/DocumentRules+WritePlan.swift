package import PropertyList

/// Writes as plans: every engine's save, delete and restore is a ``WritePlan`` made here, resolved here against
/// the stored row, and applied by the engine in its own SQL.
extension DocumentRules {
    // MARK: Planning

    /// The plan of saving `envelope` (declaring `version`) under `key`: its names checked, its body encoded, its
    /// index entries extracted. Throws, before anything is read or written, for a bad name or bytes that cannot
    /// be encoded.
    package static func planSave(
        _ envelope: PropertyList, version: DocumentVersion, kind: Change.Kind = .save, expectedRevision: Int?,
        readableMajor: Int?, overwritingNewerMajor: Bool, configuration: StoreConfiguration, collection: String,
        key: String
    ) throws(HangarError) -> WritePlan {
        try checkName(collection, what: "collection")
        try checkName(key, what: "key")
        let body: [UInt8]
        do {
            body = try envelope.encoded(as: .binary)
        } catch {
            throw HangarError(
                .invalidDocument, "The document cannot be encoded", collection: collection, key: key, underlying: error)
        }
        let options = configuration.options(for: collection)
        let content = envelope.dictionaryValue ?? [:]
        return WritePlan(
            collection: collection, key: key,
            content: WritePlan.Content(
                body: body, version: version, classTag: content["class"]?.stringValue,
                indexEntries: indexEntries(content, options.indexes)),
            kind: kind, expectedRevision: checked(expectedRevision), readableMajor: readableMajor,
            overwritingNewerMajor: overwritingNewerMajor, history: options.history)
    }

    /// The plan of a model save made before the stored document is read (a single write, planned off the writer's
    /// turn): the model's envelope at its current version. A stored newer minor, whose keys a model save keeps, is
    /// found when the plan is applied, and the save is then made again from the stored document.
    package static func planModelSave<Document: VersionedDocument>(
        _ document: Document, expectedRevision: Int?, configuration: StoreConfiguration, collection: String,
        key: String
    ) throws(HangarError) -> WritePlan {
        try checkName(collection, what: "collection")
        try checkName(key, what: "key")
        let (envelope, version) = try modelEnvelope(
            document, stored: nil, registry: configuration.registry, collection: collection, key: key)
        return try planSave(
            envelope, version: version, expectedRevision: expectedRevision,
            readableMajor: Document.format.current.major, overwritingNewerMajor: false, configuration: configuration,
            collection: collection, key: key)
    }

    /// The plan of saving an envelope as it is (a file, a tool, a restore): ``checkEnvelope(_:configuration:collection:key:overwritingNewerMajor:)``,
    /// then ``planSave(_:version:kind:expectedRevision:readableMajor:overwritingNewerMajor:configuration:collection:key:)``.
    package static func planEnvelopeSave(
        _ envelope: PropertyList, kind: Change.Kind = .save, expectedRevision: Int?, overwritingNewerMajor: Bool,
        configuration: StoreConfiguration, collection: String, key: String
    ) throws(HangarError) -> WritePlan {
        try checkName(collection, what: "collection")
        try checkName(key, what: "key")
        let (version, readableMajor) = try checkEnvelope(
            envelope, configuration: configuration, collection: collection, key: key,
            overwritingNewerMajor: overwritingNewerMajor)
        return try planSave(
            envelope, version: version, kind: kind, expectedRevision: expectedRevision, readableMajor: readableMajor,
            overwritingNewerMajor: overwritingNewerMajor, configuration: configuration, collection: collection, key: key
        )
    }

    /// The plan of saving a kept revision again as a new one (a restore): its envelope as it is. Like an
    /// envelope save, it does not replace a stored document of a newer major (nor restore a revision of a major
    /// newer than the collection's format reads) unless `overwritingNewerMajor`.
    package static func planRestore(
        _ old: StoredDocument, overwritingNewerMajor: Bool, configuration: StoreConfiguration
    ) throws(HangarError) -> WritePlan {
        try planEnvelopeSave(
            try old.envelope(), kind: .restore, expectedRevision: nil, overwritingNewerMajor: overwritingNewerMajor,
            configuration: configuration, collection: old.collection, key: old.key)
    }

    /// The plan of deleting the document at `key`. A stored document of a newer major than the collection's
    /// declared format reads (``CollectionOptions/format``) is not deleted unless `overwritingNewerMajor`, as it
    /// would not be overwritten.
    package static func planDelete(
        key: String, in collection: String, expectedRevision: Int?, overwritingNewerMajor: Bool,
        configuration: StoreConfiguration
    ) throws(HangarError) -> WritePlan {
        try checkName(collection, what: "collection")
        try checkName(key, what: "key")
        let options = configuration.options(for: collection)
        return WritePlan(
            collection: collection, key: key, content: nil, kind: .delete, expectedRevision: checked(expectedRevision),
            readableMajor: options.format?.current.major, overwritingNewerMajor: overwritingNewerMajor,
            history: options.history)
    }

    /// The revision a plan expects: the caller's (a planted fault's build may drop it, see `PlantedFault`).
    private static func checked(_ expectedRevision: Int?) -> Int? {
        #if HANGAR_PLANTED_FAULTS
            if PlantedFault.isPlanted(.noRevisionCheck) { return nil }
        #endif
        return expectedRevision
    }

    // MARK: Resolving against the stored row

    /// Checks `plan` against the stored row (`current`, nil when there is none) and says what the engine writes;
    /// `nil` for a delete of a document that does not exist. `lastRevision` gives the last revision the key
    /// ever had (0 for none); it is asked only when no document is stored.
    ///
    /// Throws, writing nothing, for a stored revision other than the expected one (``HangarError/conflict``), a
    /// stored newer major the plan may not replace (``HangarError/newerMajor``), or a stored body sealed with a
    /// key the store was not given (``HangarError/keyUnavailable``).
    package static func resolve(
        _ plan: WritePlan, current: CurrentRow?, lastRevision: () throws(HangarError) -> Int,
        configuration: StoreConfiguration, instruments: StoreInstruments?
    ) throws(HangarError) -> ResolvedWrite? {
        let (collection, key) = (plan.collection, plan.key)
        try checkExpected(
            plan.expectedRevision, actual: current?.revision, collection: collection, key: key,
            instruments: instruments)
        if let current, let readableMajor = plan.readableMajor, current.version.major > readableMajor,
            !plan.overwritingNewerMajor
        {
            throw HangarError(
                .newerMajor,
                "The stored document has major version \(current.version.major), newer than this code "
                    + (plan.isDelete ? "reads" : "writes") + " (\(readableMajor)); it was not "
                    + (plan.isDelete ? "deleted" : "overwritten"),
                collection: collection, key: key)
        }
        guard let content = plan.content else {
            guard let current else { return nil }
            instruments?.count("hangar_deletes_total", collection: collection)
            return ResolvedWrite(
                revision: current.revision, replacesCurrent: true, history: plan.history, body: nil, indexEntries: [],
                change: RecordedChange(
                    kind: .delete, collection: collection, key: key, revision: current.revision,
                    version: current.version, classTag: current.classTag))
        }
        try checkKeyAvailable(current?.keyID, configuration: configuration, collection: collection, key: key)
        // Revisions of a key only grow: past deletes, history pruning and restores.
        let revision = nextRevision(current: current?.revision, lastEver: current == nil ? try lastRevision() : 0)
        instruments?.count("hangar_saves_total", collection: collection)
        return ResolvedWrite(
            revision: revision, replacesCurrent: current != nil, history: plan.history,
            body: try sealed(content.body, revision: revision, configuration: configuration, plan: plan),
            indexEntries: content.indexEntries,
            change: RecordedChange(
                kind: plan.kind, collection: collection, key: key, revision: revision, version: content.version,
                classTag: content.classTag))
    }

    /// The bytes a body is stored as at `revision`: sealed with the current key when the store encrypts (with
    /// the key's id), else as they are (no key id).
    private static func sealed(
        _ body: [UInt8], revision: Int, configuration: StoreConfiguration, plan: WritePlan
    ) throws(HangarError) -> (bytes: [UInt8], keyID: String?) {
        guard let encryption = configuration.encryption else { return (body, nil) }
        let context = EncryptionContext(collection: plan.collection, key: plan.key, revision: revision)
        return (try encryption.sealing(body, context: context), encryption.currentKeyID)
    }
}
