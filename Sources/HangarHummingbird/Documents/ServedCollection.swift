public import Hangar
import PropertyList

/// A collection the document routes serve: its name, its format, how JSON bodies carry dates and data, and how a
/// body becomes a stored document — read by a ``Hangar/VersionedDocument`` model through the store's class
/// registry (``documents(_:in:jsonConvention:)``), or kept as an envelope checked by the collection's declared
/// model, if any (``envelopes(_:format:jsonConvention:)``).
public struct ServedCollection: Sendable {
    /// The collection's name: the first path segment of its routes (`/NAME/{key}`).
    public let name: String
    /// The format documents are read and written in: a body of an older major is migrated on the way in, a
    /// newer major is refused (422), a newer minor is kept as it came.
    public let format: DocumentFormat
    /// How JSON bodies carry dates and data.
    public var jsonConvention: JSONConvention
    let model: any ServedModel

    /// The documents of `Document`, in `name` (its own collection by default): a body must read as a `Document`
    /// (400 naming the path otherwise), and is saved through the model, as a typed save is.
    public static func documents<Document: VersionedDocument & Sendable>(
        _ document: Document.Type, in name: String = Document.collection,
        jsonConvention: JSONConvention = JSONConvention()
    ) -> ServedCollection {
        ServedCollection(
            name: name, format: Document.format, jsonConvention: jsonConvention, model: TypedModel<Document>())
    }

    /// Envelopes of `format` in `name`, saved as envelopes: a body is checked by the store (its version, and the
    /// collection's ``Hangar/CollectionOptions/model`` when the store declares one), and saved migrated to the
    /// current major.
    public static func envelopes(
        _ name: String, format: DocumentFormat, jsonConvention: JSONConvention = JSONConvention()
    ) -> ServedCollection {
        ServedCollection(name: name, format: format, jsonConvention: jsonConvention, model: EnvelopeModel())
    }
}

/// How a collection's documents are checked and saved: through a model type, or as envelopes.
protocol ServedModel: Sendable {
    /// Checks opened content (the current major), returning what ``save(_:key:in:expectedRevision:with:)`` saves.
    func check(_ content: PropertyList.Dictionary, registry: ClassRegistry) throws(HangarError) -> any Sendable

    /// Whether every document the store saves into the collection passed ``check(_:registry:)`` already, given
    /// the collection's declared model (``Hangar/CollectionOptions/model``): then a stored document at the
    /// current version needs no check to be served.
    func isCheckedOnSave(by declared: DocumentModel?) -> Bool

    /// Saves what ``check(_:registry:)`` returned, as content at the format's current version: in a write
    /// transaction, or to a store as a single write of its own (``DocumentSaving``).
    func save(
        _ checked: any Sendable, content: PropertyList.Dictionary, format: DocumentFormat, key: String,
        in collection: String, expectedRevision: Int?, to saver: some DocumentSaving
    ) async throws -> Int
}

/// A ``Hangar/VersionedDocument``'s collection: read and saved through the model.
struct TypedModel<Document: VersionedDocument & Sendable>: ServedModel {
    func check(_ content: PropertyList.Dictionary, registry: ClassRegistry) throws(HangarError) -> any Sendable {
        try registry.decode(Document.self, from: .dictionary(content))
    }

    func isCheckedOnSave(by declared: DocumentModel?) -> Bool {
        declared?.name == DocumentModel(Document.self).name
    }

    func save(
        _ checked: any Sendable, content: PropertyList.Dictionary, format: DocumentFormat, key: String,
        in collection: String, expectedRevision: Int?, to saver: some DocumentSaving
    ) async throws -> Int {
        guard let document = checked as? Document else {
            return try await EnvelopeModel().save(
                checked, content: content, format: format, key: key, in: collection,
                expectedRevision: expectedRevision, to: saver)
        }
        return try await saver.save(document, key: key, in: collection, expectedRevision: expectedRevision)
    }
}

/// A collection of envelopes: saved as the current version's envelope of the opened content.
struct EnvelopeModel: ServedModel {
    func check(_ content: PropertyList.Dictionary, registry: ClassRegistry) throws(HangarError) -> any Sendable {
        content
    }

    func isCheckedOnSave(by declared: DocumentModel?) -> Bool { true }

    func save(
        _ checked: any Sendable, content: PropertyList.Dictionary, format: DocumentFormat, key: String,
        in collection: String, expectedRevision: Int?, to saver: some DocumentSaving
    ) async throws -> Int {
        try await saver.save(
            envelope: format.seal(content, version: format.current), key: key, in: collection,
            expectedRevision: expectedRevision)
    }
}
