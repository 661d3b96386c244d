import Hangar
import PropertyList

/// A frozen document of one version: its name in the version's folder and the checksums of its two files.
struct FrozenDocument: Sendable, Hashable {
    /// `NAME`, for `M.m/NAME.plist`, `M.m/NAME.xml` and `expected/M.m/NAME.xml`.
    var name: String
    /// SHA-256 of `M.m/NAME.plist`, 64 lowercase hexadecimal digits.
    var plistSHA256: String
    /// SHA-256 of `M.m/NAME.xml`.
    var xmlSHA256: String
}

/// One frozen version, as the manifest records it at its freeze.
struct FrozenVersion: Sendable, Hashable {
    var version: DocumentVersion
    /// The oldest major the format read when this version was frozen.
    var oldestReadableMajor: Int
    /// The names of the steps leading to this version: the migration into its major (for `M.0`), and the minor
    /// upgrades of its major up to it.
    var steps: [String]
    /// Who wrote the `.plist` files: `Hangar`, or another writer (whose bytes the writer check does not compare).
    var writer: String
    var shape: FormatShape
    var documents: [FrozenDocument]

    static let hangarWriter = "Hangar"
    var isHangarWritten: Bool { writer.hasSameBytes(as: Self.hangarWriter) }
}

/// `FOLDER/format.plist`: the collection, every frozen version with its shape, steps and checksums.
struct FormatManifest: Sendable, Hashable {
    static let fileName = "format.plist"
    /// The manifest's own format.
    static let kitFormat = 1

    var collection: String
    /// Oldest first; versions strictly increase.
    var versions: [FrozenVersion]

    /// The newest frozen version.
    var current: DocumentVersion? { versions.last?.version }

    func frozen(_ version: DocumentVersion) -> FrozenVersion? { versions.first { $0.version == version } }

    // MARK: Bounds

    /// The most bytes a manifest may have, versions it may list, documents per version, shape entries per version.
    static let maxBytes = 16 << 20
    static let maxVersions = 10_000
    static let maxDocuments = 10_000
    static let maxShapeEntries = 100_000
    static let maxPathSteps = 256

    // MARK: Writing

    var propertyList: PropertyList {
        var manifest = PropertyList.Dictionary()
        manifest["kit"] = .integer(.init(Self.kitFormat))
        manifest["collection"] = .string(collection)
        manifest["current"] = current.map { .string($0.description) } ?? .string("")
        manifest["versions"] = .array(versions.map(\.propertyList))
        return .dictionary(manifest)
    }

    /// The manifest as its file holds it: XML, so that `git diff` shows what a freeze added.
    func encoded() throws -> [UInt8] {
        try propertyList.encoded(as: .xml)
    }
}

extension FrozenVersion {
    var propertyList: PropertyList {
        var entry = PropertyList.Dictionary()
        entry["version"] = .string(version.description)
        entry["oldestReadableMajor"] = .integer(.init(oldestReadableMajor))
        entry["steps"] = .array(steps.map(PropertyList.string))
        entry["writer"] = .string(writer)
        entry["shapeSource"] = .string(shape.source.rawValue)
        entry["shape"] = .array(
            shape.sortedPaths.compactMap { path in
                shape.entries[path].map { Self.shapeEntry(path, $0) }
            })
        entry["documents"] = .array(
            documents.map { document in
                [
                    "name": .string(document.name), "plist": .string(document.plistSHA256),
                    "xml": .string(document.xmlSHA256),
                ]
            })
        return .dictionary(entry)
    }

    private static func shapeEntry(_ path: [ShapeStep], _ entry: ShapeEntry) -> PropertyList {
        var fields = PropertyList.Dictionary()
        fields["path"] = .array(path.map { .string($0.manifestText) })
        fields["kinds"] = .array(entry.kinds.sorted().map { .string($0.name) })
        fields["presence"] = .string(entry.presence.rawValue)
        if let tags = entry.tags {
            fields["tags"] = .dictionary(
                PropertyList.Dictionary(
                    uniqueKeysWithValues: tags.map { ($0.key.string, PropertyList.string($0.value.string)) }))
        }
        return .dictionary(fields)
    }
}

/// Parsing a manifest that may have been edited by hand or by an attacker: every count bounded, every name a
/// plain file name, every version `M.m`, every checksum 64 hexadecimal digits.
extension FormatManifest {
    /// The manifest `bytes` hold, or the reason they are not one.
    static func parse(_ bytes: [UInt8]) -> Result<FormatManifest, ManifestError> {
        guard bytes.count <= maxBytes else {
            return .failure(ManifestError("is \(bytes.count) bytes; at most \(maxBytes)"))
        }
        let value: PropertyList
        do {
            value = try PropertyList.decode(
                bytes, limits: DecodingLimits(maxDepth: 32, maxObjects: 4_000_000, maxExpandedNodes: 4_000_000)
            ).value
        } catch {
            return .failure(ManifestError(error.description))
        }
        do {
            return .success(try manifest(from: value))
        } catch {
            return .failure(error)
        }
    }

    private static func manifest(from value: PropertyList) throws(ManifestError) -> FormatManifest {
        guard case .dictionary(let fields) = value else {
            throw ManifestError("is \(value.kindName), not a dictionary")
        }
        guard fields["kit"]?.integerValue?.exactly(Int.self) == kitFormat else {
            throw ManifestError("kit: expected \(kitFormat), the manifest format this kit reads")
        }
        let collection = try string(fields["collection"], "collection")
        guard !collection.isEmpty, !collection.unicodeScalars.contains("\0") else {
            throw ManifestError("collection: not a collection name")
        }
        guard case .array(let list)? = fields["versions"] else { throw ManifestError("versions: expected an array") }
        guard list.count <= maxVersions else {
            throw ManifestError("versions: names \(list.count) versions; at most \(maxVersions)")
        }
        var versions: [FrozenVersion] = []
        for (index, entry) in list.enumerated() {
            let version = try frozenVersion(entry, at: "versions[\(index)]")
            if let last = versions.last, !(last.version < version.version) {
                throw ManifestError("versions[\(index)]: \(version.version) does not follow \(last.version)")
            }
            versions.append(version)
        }
        let current = try string(fields["current"], "current")
        let expected = versions.last?.version.description ?? ""
        guard current.hasSameBytes(as: expected) else {
            throw ManifestError("current: \(current.debugDescription), but the last frozen version is \(expected)")
        }
        return FormatManifest(collection: collection, versions: versions)
    }

    private static func frozenVersion(_ value: PropertyList, at path: String) throws(ManifestError) -> FrozenVersion {
        guard case .dictionary(let fields) = value else { throw ManifestError("\(path): expected a dictionary") }
        let version = try parseVersion(string(fields["version"], path + ".version"), path + ".version")
        guard let oldest = fields["oldestReadableMajor"]?.integerValue?.exactly(Int.self), oldest >= 1,
            oldest <= version.major
        else { throw ManifestError("\(path).oldestReadableMajor: expected a major from 1 to \(version.major)") }
        let steps = try strings(fields["steps"], path + ".steps", limit: 10_000)
        let writer = try string(fields["writer"], path + ".writer")
        guard let source = FormatShape.Source(rawValue: try string(fields["shapeSource"], path + ".shapeSource")) else {
            throw ManifestError("\(path).shapeSource: expected reader or documents")
        }
        let shape = try parseShape(fields["shape"], source: source, at: path + ".shape")
        guard case .array(let list)? = fields["documents"], list.count <= maxDocuments else {
            throw ManifestError("\(path).documents: expected an array of at most \(maxDocuments)")
        }
        var documents: [FrozenDocument] = []
        var names: Set<ExactString> = []
        for (index, entry) in list.enumerated() {
            let at = "\(path).documents[\(index)]"
            guard case .dictionary(let document) = entry else { throw ManifestError("\(at): expected a dictionary") }
            let name = try string(document["name"], at + ".name")
            guard FormatFolder.isFileName(name) else {
                throw ManifestError("\(at).name: \(name.debugDescription) is not a plain file name inside the folder")
            }
            guard names.insert(ExactString(name)).inserted else { throw ManifestError("\(at).name: listed twice") }
            documents.append(
                FrozenDocument(
                    name: name, plistSHA256: try checksum(document["plist"], at + ".plist"),
                    xmlSHA256: try checksum(document["xml"], at + ".xml")))
        }
        return FrozenVersion(
            version: version, oldestReadableMajor: oldest, steps: steps, writer: writer, shape: shape,
            documents: documents)
    }

    private static func parseShape(_ value: PropertyList?, source: FormatShape.Source, at path: String)
        throws(ManifestError) -> FormatShape
    {
        guard case .array(let list)? = value, list.count <= maxShapeEntries else {
            throw ManifestError("\(path): expected an array of at most \(maxShapeEntries) entries")
        }
        var shape = FormatShape(source: source)
        for (index, item) in list.enumerated() {
            let at = "\(path)[\(index)]"
            guard case .dictionary(let fields) = item else { throw ManifestError("\(at): expected a dictionary") }
            let texts = try strings(fields["path"], at + ".path", limit: maxPathSteps)
            var steps: [ShapeStep] = []
            for text in texts {
                guard let step = ShapeStep(manifestText: text) else {
                    throw ManifestError("\(at).path: \(text.debugDescription) is not a step")
                }
                steps.append(step)
            }
            var entry = ShapeEntry()
            for name in try strings(fields["kinds"], at + ".kinds", limit: ValueKind.allCases.count) {
                guard let kind = ValueKind(name: name) else { throw ManifestError("\(at).kinds: unknown kind \(name)") }
                entry.kinds.insert(kind)
            }
            guard let presence = Presence(rawValue: try string(fields["presence"], at + ".presence")) else {
                throw ManifestError("\(at).presence: expected required, optional or present")
            }
            entry.presence = presence
            if let tags = fields["tags"] {
                guard case .dictionary(let map) = tags, map.count <= 10_000 else {
                    throw ManifestError("\(at).tags: expected a dictionary")
                }
                var allowed: [ExactString: ExactString] = [:]
                for (tag, target) in map {
                    guard case .string(let target) = target else { throw ManifestError("\(at).tags: expected strings") }
                    allowed[ExactString(tag)] = ExactString(target)
                }
                entry.tags = allowed
            }
            guard shape.entries.updateValue(entry, forKey: steps) == nil else {
                throw ManifestError("\(at).path: listed twice")
            }
        }
        return shape
    }

    /// `M.m`: two decimal numbers of at most 9 digits each.
    static func parseVersion(_ text: String, _ path: String = "version") throws(ManifestError) -> DocumentVersion {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 2,
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 9 && $0.allSatisfy { (48...57).contains($0) } }),
            let major = Int(String(decoding: parts[0], as: UTF8.self)),
            let minor = Int(String(decoding: parts[1], as: UTF8.self)), major >= 1
        else { throw ManifestError("\(path): \(text.debugDescription) is not a version M.m") }
        return DocumentVersion(major: major, minor: minor)
    }

    private static func string(_ value: PropertyList?, _ path: String) throws(ManifestError) -> String {
        guard case .string(let text)? = value else { throw ManifestError("\(path): expected a string") }
        return text
    }

    private static func strings(_ value: PropertyList?, _ path: String, limit: Int) throws(ManifestError) -> [String] {
        guard case .array(let list)? = value, list.count <= limit else {
            throw ManifestError("\(path): expected an array of at most \(limit) strings")
        }
        var texts: [String] = []
        for item in list {
            guard case .string(let text) = item else { throw ManifestError("\(path): expected strings") }
            texts.append(text)
        }
        return texts
    }

    private static func checksum(_ value: PropertyList?, _ path: String) throws(ManifestError) -> String {
        let text = try string(value, path)
        guard text.utf8.count == 64, text.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            throw ManifestError("\(path): expected a SHA-256 of 64 lowercase hexadecimal digits")
        }
        return text
    }
}

/// Why a manifest cannot be used.
struct ManifestError: Error, Sendable, CustomStringConvertible {
    let reason: String
    init(_ reason: String) { self.reason = reason }
    var description: String { reason }
}
