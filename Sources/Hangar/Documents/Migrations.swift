public import PropertyList

/// One step of a document's history: turns a document of major `fromMajor` into one of `fromMajor + 1`.
///
/// A step speaks the raw format, dictionary to dictionary, never today's model types: the code for a past
/// version must never change when the model does. It may rename keys, split or merge fields, change types,
/// re-tag classes, and drop data on purpose. Once released, a step is never edited.
public struct DocumentMigration: Sendable {
    /// The major this step reads; it produces `fromMajor + 1`.
    public let fromMajor: Int
    /// A short name for logs, such as `"rename registration to registrationNumber"`.
    public let name: String
    /// The step: the document's content keys (without `majorVersion` / `minorVersion`) in, the new ones out.
    public let transform: @Sendable (PropertyList.Dictionary) throws -> PropertyList.Dictionary

    /// A step from `fromMajor` to `fromMajor + 1`.
    public init(
        from fromMajor: Int,
        _ name: String,
        transform: @escaping @Sendable (PropertyList.Dictionary) throws -> PropertyList.Dictionary
    ) {
        self.fromMajor = fromMajor
        self.name = name
        self.transform = transform
    }
}

/// A step within one major: fills in defaults for a document written by an older minor.
struct MinorUpgrade: Sendable {
    /// The major this applies to.
    let major: Int
    /// Documents with a minor below this one are upgraded to it.
    let toMinor: Int
    /// The step, on content keys.
    let transform: @Sendable (PropertyList.Dictionary) throws -> PropertyList.Dictionary

    /// Upgrades documents of `major` written before `toMinor`.
    init(
        major: Int,
        toMinor: Int,
        transform: @escaping @Sendable (PropertyList.Dictionary) throws -> PropertyList.Dictionary
    ) {
        self.major = major
        self.toMinor = toMinor
        self.transform = transform
    }
}

/// A migration step that ran, as reported to an observer.
public struct MigrationEvent: Sendable, CustomStringConvertible {
    /// The version the step read.
    public let from: DocumentVersion
    /// The version it produced.
    public let to: DocumentVersion
    /// The step's name.
    public let step: String
    /// Which document, when the caller said (for the store: `collection/key`).
    public let document: String?

    public var description: String {
        "migrated \(document.map { "\($0) " } ?? "")from \(from) to \(to): \(step)"
    }
}
