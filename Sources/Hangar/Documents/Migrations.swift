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

/// A step within one major: what changed in a minor version, applied to documents written by an older minor
/// of that major (say, a default for a key minor 2 added, so that later code can rely on it).
///
/// A minor version only adds what older code can ignore; its documents stay readable by older apps of the same
/// major, which keep the keys they do not know. A minor upgrade runs when a document is read, after the major's
/// migrations: a 1.0 document read by a 2.3 format runs major 1's minor upgrades, the 1 → 2 migration, then
/// major 2's minor upgrades up to 2.3. Like a migration, it speaks the raw format and is never edited once
/// shipped.
public struct DocumentMinorUpgrade: Sendable {
    /// The major this step applies to.
    public let major: Int
    /// The minor it produces: documents of ``major`` with a lower minor are upgraded to it.
    public let toMinor: Int
    /// A short name for logs, such as `"default seat count"`.
    public let name: String
    /// The step: the document's content keys in, the upgraded ones out.
    public let transform: @Sendable (PropertyList.Dictionary) throws -> PropertyList.Dictionary

    /// A step that upgrades documents of `major` written before minor `toMinor` to it.
    public init(
        major: Int,
        to toMinor: Int,
        _ name: String,
        transform: @escaping @Sendable (PropertyList.Dictionary) throws -> PropertyList.Dictionary
    ) {
        self.major = major
        self.toMinor = toMinor
        self.name = name
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
