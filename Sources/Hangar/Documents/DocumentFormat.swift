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

/// What a document type's files look like over time: the version written today, the oldest major still
/// read, and the steps between them.
///
/// The chain is checked when the format is made, so a missing step is found at start-up, not when an
/// old document happens to be read.
public struct DocumentFormat: Sendable {
    /// The version written today.
    public let current: DocumentVersion
    /// The oldest major that can still be read (by migrating it).
    public let oldestReadableMajor: Int
    /// The minor assumed when a document has no `minorVersion`; `nil` makes the key required.
    public let defaultMinor: Int?
    private let migrations: [Int: DocumentMigration]
    private let minorUpgrades: [MinorUpgrade]

    /// The key of the major version in every envelope.
    public static let majorKey = "majorVersion"
    /// The key of the minor version in every envelope.
    public static let minorKey = "minorVersion"

    /// A format at `current`, reading majors back to `oldestReadableMajor` through `migrations`
    /// (exactly one step for each major from the oldest to the one before current).
    ///
    /// The declaration is checked here, once, at start-up: a missing or duplicate step, or a version out of
    /// range, is a programmer error and stops the program with a message saying which.
    public init(
        current: DocumentVersion,
        oldestReadableMajor: Int? = nil,
        defaultMinor: Int? = 0,
        migrations: [DocumentMigration] = []
    ) {
        self.init(
            current: current, oldestReadableMajor: oldestReadableMajor, defaultMinor: defaultMinor,
            migrations: migrations, minorUpgrades: [])
    }

    /// A format as above that also runs `minorUpgrades` on documents of an older minor.
    init(
        current: DocumentVersion,
        oldestReadableMajor: Int? = nil,
        defaultMinor: Int? = 0,
        migrations: [DocumentMigration] = [],
        minorUpgrades: [MinorUpgrade]
    ) {
        let steps: [Int: DocumentMigration]
        do {
            steps = try Self.validate(
                current: current, oldestReadableMajor: oldestReadableMajor, migrations: migrations)
        } catch {
            preconditionFailure("Hangar: invalid DocumentFormat: \(error)")
        }
        self.current = current
        self.oldestReadableMajor = oldestReadableMajor ?? current.major
        self.defaultMinor = defaultMinor
        self.migrations = steps
        self.minorUpgrades = minorUpgrades.sorted { ($0.major, $0.toMinor) < ($1.major, $1.toMinor) }
    }

    /// Checks a format declaration: versions in range, and exactly one migration for each major from
    /// `oldestReadableMajor` to the one before `current`. Returns the steps by starting major.
    @discardableResult
    static func validate(
        current: DocumentVersion,
        oldestReadableMajor: Int? = nil,
        migrations: [DocumentMigration]
    ) throws(DocumentError) -> [Int: DocumentMigration] {
        let oldest = oldestReadableMajor ?? current.major
        guard current.major >= 1, current.minor >= 0, oldest >= 1, oldest <= current.major else {
            throw DocumentError(
                .invalidFormat, "Version \(current) with oldest readable major \(oldest) is not a valid format")
        }
        var steps: [Int: DocumentMigration] = [:]
        for migration in migrations {
            guard steps[migration.fromMajor] == nil else {
                throw DocumentError(.invalidFormat, "Two migrations start at major \(migration.fromMajor)")
            }
            guard migration.fromMajor >= oldest, migration.fromMajor < current.major else {
                throw DocumentError(
                    .invalidFormat,
                    "Migration \"\(migration.name)\" starts at major \(migration.fromMajor), outside \(oldest)..<\(current.major)"
                )
            }
            steps[migration.fromMajor] = migration
        }
        for major in oldest..<current.major where steps[major] == nil {
            throw DocumentError(.invalidFormat, "No migration from major \(major) to \(major + 1)")
        }
        return steps
    }

    // MARK: Reading

    /// The version a document declares, checked but not judged (a newer major is returned, not refused).
    public func version(of document: PropertyList) throws(DocumentError) -> DocumentVersion {
        try Self.envelopeVersion(of: document, defaultMinor: defaultMinor)
    }

    /// The version any envelope declares, with no format to judge it by: a dictionary with an integer
    /// `majorVersion` and (unless `defaultMinor` is given) an integer `minorVersion`.
    public static func envelopeVersion(of document: PropertyList, defaultMinor: Int? = nil) throws(DocumentError)
        -> DocumentVersion
    {
        guard case .dictionary(let envelope) = document else {
            throw DocumentError(.notAnEnvelope, "The document's top level is \(document.kindName), not a dictionary")
        }
        let major = try versionNumber(envelope[majorKey], key: majorKey, default: nil)
        let minor = try versionNumber(envelope[minorKey], key: minorKey, default: defaultMinor)
        return DocumentVersion(major: major, minor: minor)
    }

    /// The document's content, upgraded to the current major: version keys removed, migrations and minor
    /// upgrades applied, each step reported to `observer`. A newer major is refused; nothing is modified.
    public func open(
        _ document: PropertyList,
        name: String? = nil,
        observer: (@Sendable (MigrationEvent) -> Void)? = nil
    ) throws(DocumentError) -> OpenedDocument {
        let stored = try version(of: document)
        guard case .dictionary(var content) = document else {
            throw DocumentError(.notAnEnvelope, "The document's top level is not a dictionary")
        }
        content[Self.majorKey] = nil
        content[Self.minorKey] = nil
        guard stored.major <= current.major else {
            throw DocumentError(
                .newerMajor,
                "major version \(stored.major) is newer than this code reads (\(current.major)); "
                    + "the document is left as it is",
                storedVersion: stored, document: name)
        }
        guard stored.major >= oldestReadableMajor else {
            throw DocumentError(
                .unsupportedOldMajor,
                "major version \(stored.major) is older than the oldest this code reads (\(oldestReadableMajor))",
                storedVersion: stored, document: name)
        }
        var version = stored
        while version.major < current.major {
            guard let step = migrations[version.major] else {
                throw DocumentError(.invalidFormat, "No migration from major \(version.major)", storedVersion: stored)
            }
            do {
                content = try step.transform(content)
            } catch {
                throw DocumentError(
                    .migrationFailed, "migration \"\(step.name)\" from major \(version.major) failed",
                    storedVersion: stored, document: name, underlying: error)
            }
            let next = DocumentVersion(major: version.major + 1, minor: 0)
            observer?(MigrationEvent(from: version, to: next, step: step.name, document: name))
            version = next
        }
        for upgrade in minorUpgrades where upgrade.major == version.major && upgrade.toMinor > version.minor {
            guard upgrade.toMinor <= current.minor else { continue }
            do {
                content = try upgrade.transform(content)
            } catch {
                throw DocumentError(
                    .migrationFailed, "minor upgrade to \(version.major).\(upgrade.toMinor) failed",
                    storedVersion: stored, document: name, underlying: error)
            }
            let next = DocumentVersion(major: version.major, minor: upgrade.toMinor)
            observer?(MigrationEvent(from: version, to: next, step: "minor upgrade", document: name))
            version = next
        }
        return OpenedDocument(storedVersion: stored, content: content)
    }

    /// The envelope for `content` at `version` (the current one by default).
    public func seal(_ content: PropertyList.Dictionary, version: DocumentVersion? = nil) -> PropertyList {
        let version = version ?? current
        var envelope = content
        envelope[Self.majorKey] = .integer(.init(version.major))
        envelope[Self.minorKey] = .integer(.init(version.minor))
        return .dictionary(envelope)
    }

    private static func versionNumber(_ value: PropertyList?, key: String, default fallback: Int?) throws(DocumentError)
        -> Int
    {
        guard let value else {
            if let fallback { return fallback }
            throw DocumentError(.missingVersion, "The document has no \(key)")
        }
        guard case .integer(let integer) = value, let number = integer.exactly(Int.self), number >= 0 else {
            throw DocumentError(
                .invalidVersion, "\(key) is \(value.kindName) \(describe(value)), not a non-negative integer")
        }
        return number
    }

    private static func describe(_ value: PropertyList) -> String {
        switch value {
        case .string(let string): "\"\(string)\""
        case .integer(let integer): integer.description
        case .real(let real): real.description
        case .boolean(let flag): flag.description
        default: ""
        }
    }
}

/// A document's content after ``DocumentFormat/open(_:name:observer:)``.
public struct OpenedDocument: Sendable {
    /// The version the document declared before any upgrade.
    public let storedVersion: DocumentVersion
    /// The content keys, upgraded to the current major.
    public let content: PropertyList.Dictionary
}
