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
