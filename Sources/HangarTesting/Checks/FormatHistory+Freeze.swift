import Hangar
import PropertyList

/// Freezing: the current version's files, shape and checksums, and the expectations of every older frozen file.
/// Nothing frozen is ever rewritten, and a freeze that would break a rule writes nothing.
extension FormatHistory {
    /// Freezes the current version unless it is frozen; returns the problems that stopped it, and whether it wrote.
    func freeze(
        today: TodaysDocuments, manifest: FormatManifest?, files: FrozenFiles, in location: FormatFolder
    ) -> (problems: [FormatProblem], wrote: Bool) {
        let current = Model.format.current
        // Already frozen: never rewritten (`checkCurrent` reports any difference as FROZEN_VERSION).
        if manifest?.frozen(current) != nil { return ([], false) }
        var history = manifest ?? FormatManifest(collection: Model.collection, versions: [])
        if manifest == nil { history.versions = adopted(today: today, in: location) }
        if let last = history.current, !(last < current), history.frozen(current) == nil {
            let message = "the current version \(current) is older than the last frozen version \(last)"
            return ([FormatProblem(.frozenVersion, version: "\(current)", path: "\(current)", message)], false)
        }
        let freezesSamples = history.frozen(current) == nil
        if freezesSamples {
            let previous = history.versions.last { $0.version.major == current.major }
            let steps = stepNames(after: history.current)
            if let previous {
                let broken = FormatShape.minorProblems(
                    from: previous.shape, oldVersion: "\(previous.version)", to: today.shape, version: "\(current)",
                    upgradeFills: !steps.isEmpty)
                if !broken.isEmpty { return (broken, false) }
            }
            if !location.entries(of: current).isEmpty {
                let message = "the folder \(current) already holds files the manifest does not list: remove them first"
                return ([FormatProblem(.frozenVersion, version: "\(current)", path: "\(current)", message)], false)
            }
            history.versions.append(frozenVersion(today: today, steps: steps))
        }
        do {
            try write(history, today: today, samples: freezesSamples, in: location)
        } catch {
            let problem = FormatProblem(
                .frozenVersion, version: "\(current)", path: "\(current)", "could not write: \(error)")
            return ([problem], true)
        }
        return ([], true)
    }

    private func frozenVersion(today: TodaysDocuments, steps: [String]) -> FrozenVersion {
        let documents = today.documents.enumerated().map { index, document in
            FrozenDocument(
                name: "sample-\(index + 1)", plistSHA256: SHA256.hex(document.binary),
                xmlSHA256: SHA256.hex(document.xml))
        }
        return FrozenVersion(
            version: Model.format.current, oldestReadableMajor: Model.format.oldestReadableMajor, steps: steps,
            writer: FrozenVersion.hangarWriter, shape: today.shape, documents: documents)
    }

    /// The names of the format's steps that lead past `previous` (every step, for a first freeze) to the current
    /// version: migrations into later majors, minor upgrades to later minors.
    func stepNames(after previous: DocumentVersion?, upTo version: DocumentVersion = Model.format.current) -> [String] {
        let floor = previous ?? DocumentVersion(major: 0, minor: 0)
        let migrations = Model.format.migrationSteps.filter { step in
            let target = DocumentVersion(major: step.fromMajor + 1, minor: 0)
            return floor < target && target <= version
        }
        let upgrades = Model.format.minorUpgradeSteps.filter { step in
            let target = DocumentVersion(major: step.major, minor: step.toMinor)
            return floor < target && target <= version
        }
        return migrations.map(\.name) + upgrades.map(\.name)
    }

    /// Writes the current version's files (when it freezes the samples), every expectation, then the manifest.
    private func write(
        _ history: FormatManifest, today: TodaysDocuments, samples: Bool, in location: FormatFolder
    ) throws {
        let current = Model.format.current
        if samples, let frozen = history.frozen(current) {
            for (document, sample) in zip(frozen.documents, today.documents) {
                try location.write(sample.binary, to: FormatFolder.plistPath(current, document.name))
                try location.write(sample.xml, to: FormatFolder.twinPath(current, document.name))
            }
        }
        var files = location.checkFrozenFiles(history)
        files.problems = []
        _ = writeExpectations(files, in: location)
        try location.write(history.encoded(), to: FormatManifest.fileName)
    }

    /// A folder made before the kit (version folders, no manifest): each version's files as they are, its shape
    /// from its documents (today's reader for the current version), its missing XML twins written.
    private func adopted(today: TodaysDocuments, in location: FormatFolder) -> [FrozenVersion] {
        var versions: [FrozenVersion] = []
        for version in location.versionFolders() where version <= Model.format.current {
            let names = location.entries(of: version).filter { $0.hasSuffix(".plist") }.map { String($0.dropLast(6)) }
            var documents: [FrozenDocument] = []
            var contents: [PropertyList] = []
            var sameBytes = true
            for (index, name) in names.enumerated() where FormatFolder.isFileName(name) {
                guard case .bytes(let bytes) = location.read(FormatFolder.plistPath(version, name)),
                    let value = try? PropertyList(binary: bytes)
                else { continue }
                let twinPath = FormatFolder.twinPath(version, name)
                if case .missing = location.read(twinPath), let xml = try? value.encoded(as: .xml) {
                    _ = try? location.write(xml, to: twinPath)
                }
                guard case .bytes(let twin) = location.read(twinPath) else { continue }
                sameBytes = sameBytes && index < today.documents.count && today.documents[index].binary == bytes
                documents.append(
                    FrozenDocument(name: name, plistSHA256: SHA256.hex(bytes), xmlSHA256: SHA256.hex(twin)))
                contents.append(value)
            }
            guard !documents.isEmpty else { continue }
            let isCurrent = version == Model.format.current
            versions.append(
                FrozenVersion(
                    version: version, oldestReadableMajor: Model.format.oldestReadableMajor,
                    steps: stepNames(after: versions.last?.version, upTo: version),
                    writer: isCurrent && sameBytes
                        ? FrozenVersion.hangarWriter : isCurrent ? "another writer" : "frozen before the kit",
                    shape: isCurrent ? today.shape : FormatShape.fromDocuments(contents), documents: documents))
        }
        return versions
    }
}
