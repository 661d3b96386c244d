import Hangar
import PropertyList

/// The samples as today's code writes them, and the shape today's reader asks for when reading them back.
struct TodaysDocuments: Sendable {
    struct Document: Sendable {
        /// The envelope today's code seals the sample in.
        let envelope: PropertyList
        let binary: [UInt8]
        let xml: [UInt8]
    }

    let documents: [Document]
    let shape: FormatShape

    init<Model: VersionedDocument>(samples: [Model], registry: ClassRegistry) throws {
        var documents: [Document] = []
        var reads: [ModelRead] = []
        var contents: [PropertyList] = []
        for sample in samples {
            let content = registry.encode(sample).dictionaryValue ?? [:]
            let envelope = Model.format.seal(content)
            documents.append(
                Document(
                    envelope: envelope, binary: try envelope.encoded(as: .binary), xml: try envelope.encoded(as: .xml)))
            // The shape is what the reader asks for reading the sample back, as a load would (after `open`).
            let opened = try Model.format.open(envelope)
            let traced = try ModelReadTrace.recording { () throws(HangarError) in
                try registry.decode(Model.self, from: .dictionary(opened.content))
            }
            reads += traced.reads
            contents.append(.dictionary(opened.content))
        }
        self.documents = documents
        self.shape = FormatShape.fromReads(reads, documents: contents)
    }
}

/// The frozen files as found on disk, checked against the manifest.
struct FrozenFiles: Sendable {
    struct Document: Sendable {
        let version: DocumentVersion
        let name: String
        let bytes: [UInt8]
        let value: PropertyList
    }

    var problems: [FormatProblem] = []
    /// The frozen documents whose files matched their checksums and decoded, oldest version first.
    var documents: [Document] = []

    func documents(of version: DocumentVersion) -> [Document] { documents.filter { $0.version == version } }
}

extension FormatFolder {
    /// Checks every file the manifest lists (checksum, binary, the twin's value, the version it declares) and
    /// that the version folders hold nothing else.
    func checkFrozenFiles(_ manifest: FormatManifest) -> FrozenFiles {
        var files = FrozenFiles()
        for frozen in manifest.versions {
            let version = frozen.version
            let listed = Set(
                frozen.documents.flatMap { [ExactString($0.name + ".plist"), ExactString($0.name + ".xml")] })
            for name in entries(of: version) where !listed.contains(ExactString(name)) {
                files.problems.append(
                    FormatProblem(
                        .frozenFileChanged, version: "\(version)", path: "\(version)/\(name)",
                        "is not in the manifest: frozen files are added only by a freeze (HANGAR_FREEZE=1) or `hangar formats capture`"
                    ))
            }
            for document in frozen.documents {
                if let loaded = checkDocument(document, of: version, problems: &files.problems) {
                    files.documents.append(loaded)
                }
            }
        }
        let frozenVersions = Set(manifest.versions.map(\.version))
        for version in versionFolders() where !frozenVersions.contains(version) && !entries(of: version).isEmpty {
            files.problems.append(
                FormatProblem(
                    .frozenFileChanged, version: "\(version)", path: "\(version)",
                    "the folder holds files, but the manifest has no version \(version)"))
        }
        return files
    }

    private func checkDocument(_ document: FrozenDocument, of version: DocumentVersion, problems: inout [FormatProblem])
        -> FrozenFiles.Document?
    {
        let plistPath = Self.plistPath(version, document.name)
        let twinPath = Self.twinPath(version, document.name)
        let plist = checkedBytes(plistPath, sha256: document.plistSHA256, version: version, problems: &problems)
        let twin = checkedBytes(twinPath, sha256: document.xmlSHA256, version: version, problems: &problems)
        guard let plist else { return nil }
        let value: PropertyList
        do {
            guard plist.starts(with: Array("bplist00".utf8)) else {
                throw ManifestError("is not a binary property list")
            }
            value = try PropertyList(binary: plist)
        } catch {
            problems.append(FormatProblem(.manifestInvalid, version: "\(version)", path: plistPath, "\(error)"))
            return nil
        }
        if let twin {
            let twinValue = try? PropertyList(xml: twin)
            if twinValue != value {
                problems.append(
                    FormatProblem(
                        .frozenFileChanged, version: "\(version)", path: twinPath,
                        "does not hold the value of \(plistPath): a twin is the frozen document in XML, for review"))
            }
        }
        guard let declared = try? DocumentFormat.envelopeVersion(of: value), declared == version else {
            problems.append(
                FormatProblem(
                    .frozenFileChanged, version: "\(version)", path: plistPath,
                    "does not declare version \(version) (majorVersion and minorVersion), though it is frozen as one"))
            return nil
        }
        return FrozenFiles.Document(version: version, name: document.name, bytes: plist, value: value)
    }

    /// The bytes at `relative` when their checksum is `sha256`; otherwise a problem, and `nil`.
    private func checkedBytes(
        _ relative: String, sha256: String, version: DocumentVersion, problems: inout [FormatProblem]
    ) -> [UInt8]? {
        switch read(relative) {
        case .missing:
            problems.append(
                FormatProblem(
                    .frozenFileMissing, version: "\(version)", path: relative,
                    "the manifest lists it, the folder does not hold it: restore it from version control"))
            return nil
        case .unreadable(let reason):
            problems.append(FormatProblem(.frozenFileChanged, version: "\(version)", path: relative, reason))
            return nil
        case .bytes(let bytes):
            let actual = SHA256.hex(bytes)
            guard actual.hasSameBytes(as: sha256) else {
                problems.append(
                    FormatProblem(
                        .frozenFileChanged, version: "\(version)", path: relative,
                        "SHA-256 is \(actual), the manifest froze \(sha256): a frozen file never changes; restore it (git checkout -- \(path)/\(relative)) and ship a new version instead"
                    ))
                return nil
            }
            return bytes
        }
    }
}

/// The rules that need no app code.
enum FormatRules {
    /// The minor rules between consecutive frozen versions of each major.
    static func betweenFrozenVersions(_ manifest: FormatManifest) -> [FormatProblem] {
        var problems: [FormatProblem] = []
        for (old, new) in zip(manifest.versions, manifest.versions.dropFirst())
        where old.version.major == new.version.major {
            problems += FormatShape.minorProblems(
                from: old.shape, oldVersion: "\(old.version)", to: new.shape, version: "\(new.version)",
                upgradeFills: !new.steps.isEmpty)
        }
        return problems
    }
}
