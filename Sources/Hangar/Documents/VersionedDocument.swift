import PropertyList

/// A model stored as a versioned document: its representation is the document's content (a dictionary), and
/// the envelope adds `majorVersion` / `minorVersion` around it.
///
/// ```swift
/// extension Pilot: VersionedDocument {
///     static let collection = "pilots"
///     static let format = DocumentFormat(current: .init(major: 2, minor: 1), oldestReadableMajor: 1,
///                                        migrations: [renameRegistration])
/// }
/// ```
public protocol VersionedDocument: PropertyListRepresentable {
    /// The collection documents of this type are stored in unless a call names another.
    static var collection: String { get }
    /// The format history: the version written today and how older ones are upgraded.
    static var format: DocumentFormat { get }
}

/// Turns versioned documents into envelopes and back, through a class registry.
enum DocumentCoding {
    /// The envelope for `document`: its content (with its `"class"` tag when the registry knows its type)
    /// plus the current version, or plus `version` (a newer minor kept from the stored document).
    static func envelope<Document: VersionedDocument>(
        for document: Document,
        registry: ClassRegistry,
        extraContent: PropertyList.Dictionary = [:],
        version: DocumentVersion? = nil
    ) throws(DocumentError) -> PropertyList {
        guard case .dictionary(var content) = registry.encode(document) else {
            throw DocumentError(
                .notAnEnvelope, "\(Document.self) is represented as a non-dictionary; a document must be a dictionary")
        }
        for (key, value) in extraContent where content[key] == nil { content[key] = value }
        return Document.format.seal(content, version: version)
    }

    /// The content keys of `content` that the model does not write back after reading it: the keys a newer
    /// minor added, which an older reader must keep.
    static func unknownKeys<Document: VersionedDocument>(
        of content: PropertyList.Dictionary,
        as _: Document.Type,
        registry: ClassRegistry
    ) throws(ModelError) -> PropertyList.Dictionary {
        let model = try registry.decode(Document.self, from: .dictionary(content))
        let rewritten = registry.encode(model).dictionaryValue ?? [:]
        return content.filter { rewritten[$0.key] == nil }
    }
}
