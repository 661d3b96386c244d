import Hangar
import PropertyList

/// A document a client sent, checked and brought to the current format: what a PUT saves.
struct IncomingDocument: Sendable {
    /// The content at the current major (migrated when older).
    let content: PropertyList.Dictionary
    /// What the collection's model made of it (``ServedModel/check(_:registry:)``).
    let checked: any Sendable
    /// The envelope to save as it is, for a body of a newer minor (its keys this server does not know are
    /// kept); `nil` to save ``checked`` through the model (which keeps a stored newer minor's keys).
    let newerMinorEnvelope: PropertyList?
}

/// Reading documents from request bodies and writing them into responses, with the store's own envelope and
/// migration machinery (``Hangar/DocumentFormat/open(_:name:observer:)``, the class registry).
struct DocumentBodies: Sendable {
    /// The collection served.
    let collection: ServedCollection
    /// The store's configuration: the registry and the migration observer.
    let configuration: StoreConfiguration
    /// Whether every save into the collection is checked by the model these routes read with
    /// (``ServedModel/isCheckedOnSave(by:)``), so that ``storedBinary(_:)`` may skip the check.
    private let checkedOnSave: Bool

    init(collection: ServedCollection, configuration: StoreConfiguration) {
        self.collection = collection
        self.configuration = configuration
        checkedOnSave = collection.model.isCheckedOnSave(by: configuration.options(for: collection.name).model)
    }

    private var format: DocumentFormat { collection.format }

    /// A request body as a document: parsed in `bodyFormat`, its version checked (a newer major is 422), an
    /// older major migrated, and read by the collection's model (a value it rejects is 400 naming the path).
    func read(_ bytes: [UInt8], as bodyFormat: BodyFormat, key: String) throws(HangarHTTPError) -> IncomingDocument {
        var value: PropertyList
        do {
            value = try bodyFormat.decode(bytes)
        } catch {
            throw HangarHTTPError(.badRequest, "The body is not valid \(bodyFormat.rawValue.uppercased()): \(error)")
        }
        if bodyFormat == .json { value = try collection.jsonConvention.restoringTypes(in: value) }
        let version: DocumentVersion
        do {
            version = try format.version(of: value)
        } catch {
            throw HangarHTTPError(.badRequest, "The body is not a \(collection.name) document: \(error)")
        }
        if version.major > format.current.major {
            throw HangarHTTPError(
                .unprocessableContent,
                "The body's major version \(version.major) is newer than this server reads (\(format.current.major))")
        }
        let opened: OpenedDocument
        let checked: any Sendable
        do {
            opened = try format.open(
                value, name: "\(collection.name)/\(key)", observer: configuration.migrationObserver)
            checked = try collection.model.check(opened.content, registry: configuration.registry)
        } catch {
            throw HangarHTTPError(.badRequest, error.description)
        }
        let isNewerMinor = version.major == format.current.major && version.minor > format.current.minor
        return IncomingDocument(
            content: opened.content, checked: checked,
            newerMinorEnvelope: isNewerMinor ? format.seal(opened.content, version: version) : nil)
    }

    /// Saves `incoming` under `key`: a newer minor's envelope as it came, else through the collection's model; in
    /// a write transaction, or to the store as a single write of its own.
    func save(_ incoming: IncomingDocument, key: String, expectedRevision: Int?, to saver: some DocumentSaving)
        async throws -> Int
    {
        if let envelope = incoming.newerMinorEnvelope {
            return try await saver.save(
                envelope: envelope, key: key, in: collection.name, expectedRevision: expectedRevision)
        }
        return try await collection.model.save(
            incoming.checked, content: incoming.content, format: format, key: key, in: collection.name,
            expectedRevision: expectedRevision, to: saver)
    }

    /// A stored document as a client reads it: migrated to the current major when older (a newer minor keeps
    /// its version and keys). A stored newer major is 409 and left as it is; a document the model cannot read
    /// is 500.
    func envelope(of stored: StoredDocument) throws(HangarHTTPError) -> PropertyList {
        let opened: OpenedDocument
        do {
            opened = try format.open(
                try stored.envelope(), name: "\(stored.collection)/\(stored.key)",
                observer: configuration.migrationObserver)
            _ = try collection.model.check(opened.content, registry: configuration.registry)
        } catch let error where error.code == .newerMajor {
            throw HangarHTTPError(.conflict, "\(stored.collection)/\(stored.key): \(error.reason)")
        } catch {
            throw HangarHTTPError(.internalServerError, "\(stored.collection)/\(stored.key): \(error.description)")
        }
        let version = opened.storedVersion.major == format.current.major ? opened.storedVersion : format.current
        return format.seal(opened.content, version: version)
    }

    /// The stored bytes of `stored`, when they are exactly what a client asking for a binary property list is
    /// to be sent, without decoding and encoding them again: the document is at the collection's current version
    /// (nothing to migrate), not sealed, and every save into the collection is checked by the model these routes
    /// read with. `nil` otherwise: the value is opened, checked and encoded (``envelope(of:)``).
    func storedBinary(_ stored: StoredDocument) -> [UInt8]? {
        guard checkedOnSave, stored.keyID == nil, stored.version == format.current else { return nil }
        return stored.body
    }

    /// Refuses (409) to write over or delete a stored document of a newer major than this server reads.
    func checkWritable(_ stored: StoredDocument?) throws(HangarHTTPError) {
        guard let stored, stored.version.major > format.current.major else { return }
        throw HangarHTTPError(
            .conflict,
            "\(stored.collection)/\(stored.key): stored at major version \(stored.version.major), newer than this "
                + "server writes (\(format.current.major)); it is left as it is")
    }
}
