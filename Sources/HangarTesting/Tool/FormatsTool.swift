import Foundation
package import Hangar
package import PropertyList

/// What `hangar formats` does with kit folders where no app code is at hand: check them, count a store's
/// documents against them, capture a stored document into one. For the CLI (`package`), not API.
package enum FormatsTool {
    /// A failure the CLI prints as `PATH: reason`.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package let path: String
        package let reason: String
        package var description: String { "\(path): \(reason)" }
    }

    /// The manifest's problems, the frozen files' checksums, twins and versions, and the minor rules between
    /// consecutive frozen versions; empty when the folder is sound. A folder without a manifest is a problem.
    package static func check(folder: String) -> [FormatProblem] {
        let location = FormatFolder(folder)
        switch location.manifest() {
        case .invalid(let problem):
            return [problem]
        case .none:
            return [FormatProblem(.manifestInvalid, version: "-", path: FormatManifest.fileName, "No such file")]
        case .manifest(let manifest):
            return location.checkFrozenFiles(manifest).problems + FormatRules.betweenFrozenVersions(manifest)
        }
    }

    /// The manifests of `folders`, by collection, for a census.
    package struct Census: Sendable {
        private var manifests: [ExactString: FormatManifest] = [:]

        /// Reads every folder's manifest; a missing or unusable one, or two for one collection, is a failure.
        package init(folders: [String]) throws(Failure) {
            for folder in folders {
                let location = FormatFolder(folder)
                switch location.manifest() {
                case .invalid(let problem): throw Failure(path: folder, reason: "\(problem.path): \(problem.message)")
                case .none: throw Failure(path: folder, reason: "\(FormatManifest.fileName): No such file")
                case .manifest(let manifest):
                    let collection = ExactString(manifest.collection)
                    guard manifests[collection] == nil else {
                        throw Failure(
                            path: folder,
                            reason: "a second history of collection \(manifest.collection.debugDescription)")
                    }
                    manifests[collection] = manifest
                }
            }
        }

        /// The collections the manifests name, sorted by their bytes.
        package var collections: [String] { manifests.keys.sorted().map(\.string) }

        /// The frozen versions of `collection`'s history (oldest first), its current version and its oldest
        /// readable major; `nil` when no manifest names it.
        package func history(of collection: String) -> (frozen: [DocumentVersion], oldestReadableMajor: Int)? {
            guard let manifest = manifests[ExactString(collection)], let last = manifest.versions.last else {
                return nil
            }
            return (manifest.versions.map(\.version), last.oldestReadableMajor)
        }

        /// `current`, `frozen`, `unknown`, `newer`, `too-old`, or `-` when no manifest names `collection`.
        package func status(of version: DocumentVersion, in collection: String) -> String {
            guard let manifest = manifests[ExactString(collection)], let current = manifest.current,
                let last = manifest.versions.last
            else { return "-" }
            if version == current { return "current" }
            if version > current { return "newer" }
            if manifest.frozen(version) != nil { return "frozen" }
            if version.major < last.oldestReadableMajor { return "too-old" }
            return "unknown"
        }

        /// Whether `envelope` matches the frozen shape of `version`; `nil` when that version is not frozen.
        package func matchesFrozenShape(_ envelope: PropertyList, version: DocumentVersion, in collection: String)
            -> Bool?
        {
            guard let frozen = manifests[ExactString(collection)]?.frozen(version) else { return nil }
            return frozen.shape.matches(envelope)
        }
    }

    /// Freezes `envelope`, stored at `version` in `collection`, as `folder/M.m/NAME.plist` (its XML twin beside
    /// it), strings under each `redact` key path replaced by placeholders of the same length; `storedBody` is
    /// written as it is when nothing is redacted. Returns the `.plist` file's path.
    package static func capture(
        envelope: PropertyList, storedBody: [UInt8]?, collection: String, name: String, folder: String,
        redact: [String]
    ) throws(Failure) -> String {
        let location = FormatFolder(folder)
        let version: DocumentVersion
        do {
            version = try DocumentFormat.envelopeVersion(of: envelope)
        } catch {
            throw Failure(path: name, reason: error.description)
        }
        var patterns: [PathPattern] = []
        for text in redact {
            guard let pattern = PathPattern(text) else { throw Failure(path: text, reason: "not a key path") }
            patterns.append(pattern)
        }
        guard FormatFolder.isFileName(name) else {
            throw Failure(path: name, reason: "not a file name (no /, not hidden, at most 200 bytes); give --name")
        }
        var manifest: FormatManifest
        switch location.manifest() {
        case .invalid(let problem): throw Failure(path: folder, reason: "\(problem.path): \(problem.message)")
        case .none: manifest = FormatManifest(collection: collection, versions: [])
        case .manifest(let found): manifest = found
        }
        guard manifest.collection.hasSameBytes(as: collection) else {
            throw Failure(path: folder, reason: "is the history of collection \(manifest.collection.debugDescription)")
        }
        let plistPath = FormatFolder.plistPath(version, name)
        let twinPath = FormatFolder.twinPath(version, name)
        for path in [plistPath, twinPath] {
            if case .missing = location.read(path) { continue }
            throw Failure(
                path: location.absolute(path), reason: "exists: a frozen file is never replaced; give another --name")
        }
        let captured = patterns.isEmpty ? envelope : Redaction.apply(patterns, to: envelope)
        let binary: [UInt8]
        let xml: [UInt8]
        // Unredacted, the stored bytes are frozen as they are (when they are a binary property list).
        let stored = patterns.isEmpty ? storedBody.flatMap { $0.starts(with: Array("bplist00".utf8)) ? $0 : nil } : nil
        do {
            binary = try stored ?? captured.encoded(as: .binary)
            xml = try captured.encoded(as: .xml)
        } catch {
            throw Failure(path: name, reason: "\(error)")
        }
        manifest.add(
            FrozenDocument(name: name, plistSHA256: SHA256.hex(binary), xmlSHA256: SHA256.hex(xml)), at: version,
            content: captured)
        do {
            try location.write(binary, to: plistPath)
            try location.write(xml, to: twinPath)
            try location.write(manifest.encoded(), to: FormatManifest.fileName)
        } catch {
            throw Failure(path: folder, reason: "\(error)")
        }
        return location.absolute(plistPath)
    }
}

extension FormatManifest {
    /// Adds a captured document to `version`, adding the version (its shape from the document) when new.
    mutating func add(_ document: FrozenDocument, at version: DocumentVersion, content: PropertyList) {
        if let index = versions.firstIndex(where: { $0.version == version }) {
            versions[index].documents.append(document)
            return
        }
        let oldest = versions.last.map { min($0.oldestReadableMajor, version.major) } ?? version.major
        let frozen = FrozenVersion(
            version: version, oldestReadableMajor: oldest, steps: [], writer: "captured from a store",
            shape: FormatShape.fromDocuments([content]), documents: [document])
        versions.append(frozen)
        versions.sort { $0.version < $1.version }
    }
}

/// Strings under chosen key paths replaced by placeholders of the same length (in characters).
enum Redaction {
    static func apply(_ patterns: [PathPattern], to value: PropertyList) -> PropertyList {
        walk(value, path: [], patterns: patterns, redacting: false)
    }

    private static func walk(_ value: PropertyList, path: [ShapeStep], patterns: [PathPattern], redacting: Bool)
        -> PropertyList
    {
        let redacting = redacting || (!path.isEmpty && patterns.contains { $0.matches(path) })
        switch value {
        case .string(let text) where redacting:
            return .string(String(repeating: "x", count: text.count))
        case .array(let elements):
            return .array(elements.map { walk($0, path: path + [.element], patterns: patterns, redacting: redacting) })
        case .dictionary(var fields):
            var fieldsPath = path
            if case .string(let tag)? = fields["class"] { fieldsPath.append(.tag(ExactString(tag))) }
            for (key, field) in fields {
                let keepsTag = key.hasSameBytes(as: "class") && fieldsPath.count > path.count
                guard !keepsTag else { continue }
                fields[key] = walk(
                    field, path: fieldsPath + [.key(ExactString(key))], patterns: patterns, redacting: redacting)
            }
            return .dictionary(fields)
        default:
            return value
        }
    }
}
