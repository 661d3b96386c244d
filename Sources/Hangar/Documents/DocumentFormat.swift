public import PropertyList

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
    ) throws(HangarError) -> [Int: DocumentMigration] {
        let oldest = oldestReadableMajor ?? current.major
        guard current.major >= 1, current.minor >= 0, oldest >= 1, oldest <= current.major else {
            throw HangarError(
                .invalidFormat, "Version \(current) with oldest readable major \(oldest) is not a valid format")
        }
        var steps: [Int: DocumentMigration] = [:]
        for migration in migrations {
            guard steps[migration.fromMajor] == nil else {
                throw HangarError(.invalidFormat, "Two migrations start at major \(migration.fromMajor)")
            }
            guard migration.fromMajor >= oldest, migration.fromMajor < current.major else {
                throw HangarError(
                    .invalidFormat,
                    "Migration \"\(migration.name)\" starts at major \(migration.fromMajor), outside \(oldest)..<\(current.major)"
                )
            }
            steps[migration.fromMajor] = migration
        }
        for major in oldest..<current.major where steps[major] == nil {
            throw HangarError(.invalidFormat, "No migration from major \(major) to \(major + 1)")
        }
        return steps
    }

    // MARK: Opening

    /// The document's content, upgraded to the current major: version keys removed, migrations and minor
    /// upgrades applied, each step reported to `observer`. A newer major is refused; nothing is modified.
    public func open(
        _ document: PropertyList,
        name: String? = nil,
        observer: (@Sendable (MigrationEvent) -> Void)? = nil
    ) throws(HangarError) -> OpenedDocument {
        let stored = try version(of: document)
        guard case .dictionary(var content) = document else {
            throw HangarError(.notAnEnvelope, "The document's top level is not a dictionary")
        }
        content[Self.majorKey] = nil
        content[Self.minorKey] = nil
        guard stored.major <= current.major else {
            throw HangarError(
                .newerMajor,
                "major version \(stored.major) is newer than this code reads (\(current.major)); "
                    + "the document is left as it is",
                storedVersion: stored, document: name)
        }
        guard stored.major >= oldestReadableMajor else {
            throw HangarError(
                .unsupportedOldMajor,
                "major version \(stored.major) is older than the oldest this code reads (\(oldestReadableMajor))",
                storedVersion: stored, document: name)
        }
        var version = stored
        while version.major < current.major {
            guard let step = migrations[version.major] else {
                throw HangarError(.invalidFormat, "No migration from major \(version.major)", storedVersion: stored)
            }
            do {
                content = try step.transform(content)
            } catch {
                throw HangarError(
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
                throw HangarError(
                    .migrationFailed, "minor upgrade to \(version.major).\(upgrade.toMinor) failed",
                    storedVersion: stored, document: name, underlying: error)
            }
            let next = DocumentVersion(major: version.major, minor: upgrade.toMinor)
            observer?(MigrationEvent(from: version, to: next, step: "minor upgrade", document: name))
            version = next
        }
        return OpenedDocument(storedVersion: stored, content: content)
    }
}

/// A document's content after ``DocumentFormat/open(_:name:observer:)``.
public struct OpenedDocument: Sendable {
    /// The version the document declared before any upgrade.
    public let storedVersion: DocumentVersion
    /// The content keys, upgraded to the current major.
    public let content: PropertyList.Dictionary
}
