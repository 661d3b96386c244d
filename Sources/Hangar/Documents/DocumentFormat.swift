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
    private let minorUpgrades: [DocumentMinorUpgrade]

    /// The migration steps, oldest major first.
    public var migrationSteps: [DocumentMigration] { migrations.values.sorted { $0.fromMajor < $1.fromMajor } }
    /// The minor upgrades, by the version each leads to.
    public var minorUpgradeSteps: [DocumentMinorUpgrade] { minorUpgrades }

    /// A format at `current`, reading majors back to `oldestReadableMajor` through `migrations` (exactly one
    /// step for each major from the oldest to the one before current), and bringing documents of an older minor
    /// up to date through `minorUpgrades`.
    ///
    /// The declaration is checked here, once, at start-up: a missing or duplicate step, or a version out of
    /// range, is a programmer error and stops the program with a message saying which. Tests check a declaration
    /// without stopping with ``validated(current:oldestReadableMajor:defaultMinor:migrations:minorUpgrades:)``.
    public init(
        current: DocumentVersion,
        oldestReadableMajor: Int? = nil,
        defaultMinor: Int? = 0,
        migrations: [DocumentMigration] = [],
        minorUpgrades: [DocumentMinorUpgrade] = []
    ) {
        do {
            self = try Self.validated(
                current: current, oldestReadableMajor: oldestReadableMajor, defaultMinor: defaultMinor,
                migrations: migrations, minorUpgrades: minorUpgrades)
        } catch {
            preconditionFailure("Hangar: invalid DocumentFormat: \(error)")
        }
    }

    private init(
        current: DocumentVersion, oldestReadableMajor: Int, defaultMinor: Int?, migrations: [Int: DocumentMigration],
        minorUpgrades: [DocumentMinorUpgrade]
    ) {
        self.current = current
        self.oldestReadableMajor = oldestReadableMajor
        self.defaultMinor = defaultMinor
        self.migrations = migrations
        self.minorUpgrades = minorUpgrades.sorted { ($0.major, $0.toMinor) < ($1.major, $1.toMinor) }
    }

    /// The format ``init(current:oldestReadableMajor:defaultMinor:migrations:minorUpgrades:)`` makes, or, for a
    /// declaration it would stop the program on, ``HangarError/Code/invalidFormat`` saying what is wrong: a
    /// version out of range, a negative `defaultMinor`, a missing migration (`No migration from major 2 to 3`),
    /// two steps for one version, a step outside the versions the format reads, a minor upgrade to minor 0.
    public static func validated(
        current: DocumentVersion,
        oldestReadableMajor: Int? = nil,
        defaultMinor: Int? = 0,
        migrations: [DocumentMigration] = [],
        minorUpgrades: [DocumentMinorUpgrade] = []
    ) throws(HangarError) -> DocumentFormat {
        let oldest = oldestReadableMajor ?? current.major
        guard current.major >= 1, current.minor >= 0, oldest >= 1, oldest <= current.major else {
            throw HangarError(
                .invalidFormat, "Version \(current) with oldest readable major \(oldest) is not a valid format")
        }
        if let defaultMinor, defaultMinor < 0 {
            // The envelope reader refuses a negative minor: a default one would open documents it then refuses.
            throw HangarError(.invalidFormat, "The default minor \(defaultMinor) is negative; minors start at 0")
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
        var upgrades: Set<DocumentVersion> = []
        for upgrade in minorUpgrades {
            let version = DocumentVersion(major: upgrade.major, minor: upgrade.toMinor)
            guard upgrades.insert(version).inserted else {
                throw HangarError(.invalidFormat, "Two minor upgrades lead to \(version)")
            }
            guard upgrade.toMinor >= 1 else {
                // Every document of a major is at minor 0 or later: there is nothing to upgrade to 0.
                throw HangarError(
                    .invalidFormat,
                    "Minor upgrade \"\(upgrade.name)\" leads to \(version); an upgrade's minor must be at least 1")
            }
            let beyondCurrent = upgrade.major == current.major && upgrade.toMinor > current.minor
            guard upgrade.major >= oldest, upgrade.major <= current.major, !beyondCurrent else {
                throw HangarError(
                    .invalidFormat,
                    "Minor upgrade \"\(upgrade.name)\" leads to \(version), outside the versions \(oldest).0...\(current) this format reads"
                )
            }
        }
        return DocumentFormat(
            current: current, oldestReadableMajor: oldest, defaultMinor: defaultMinor, migrations: steps,
            minorUpgrades: minorUpgrades)
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
        while true {
            try upgradeMinor(&content, from: &version, stored: stored, name: name, observer: observer)
            guard version.major < current.major else { break }
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
        return OpenedDocument(storedVersion: stored, content: content)
    }
}

extension DocumentFormat {
    /// Runs the minor upgrades of `version`'s major past its minor, in order, reporting each to `observer`.
    private func upgradeMinor(
        _ content: inout PropertyList.Dictionary, from version: inout DocumentVersion, stored: DocumentVersion,
        name: String?, observer: (@Sendable (MigrationEvent) -> Void)?
    ) throws(HangarError) {
        for upgrade in minorUpgrades where upgrade.major == version.major && upgrade.toMinor > version.minor {
            do {
                content = try upgrade.transform(content)
            } catch {
                throw HangarError(
                    .migrationFailed,
                    "minor upgrade \"\(upgrade.name)\" to \(version.major).\(upgrade.toMinor) failed",
                    storedVersion: stored, document: name, underlying: error)
            }
            let next = DocumentVersion(major: version.major, minor: upgrade.toMinor)
            observer?(MigrationEvent(from: version, to: next, step: upgrade.name, document: name))
            version = next
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
