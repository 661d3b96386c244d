import Foundation
import Hangar
import PropertyList

/// A kit folder on disk: `format.plist`, `M.m/NAME.plist` and `.xml`, `expected/M.m/NAME.xml`. Files are read
/// without following symbolic links, never from outside the folder, and never past a size bound.
struct FormatFolder: Sendable {
    /// The folder, absolute.
    let path: String

    /// The largest frozen file read.
    static let maxFileBytes = 64 << 20

    /// `folder` as given: absolute, or relative to the working directory (the package root under `swift test`).
    init(_ folder: String) {
        if folder.hasPrefix("/") {
            path = folder
        } else {
            let base = FileManager.default.currentDirectoryPath
            path = base + (base.hasSuffix("/") ? "" : "/") + folder
        }
    }

    /// Whether `name` can be a file's name inside a version folder: not empty, no `/`, no NUL, not `.` or `..`,
    /// not hidden, at most 200 bytes.
    static func isFileName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        return !bytes.isEmpty && bytes.count <= 200 && !bytes.contains(UInt8(ascii: "/")) && !bytes.contains(0)
            && bytes.first != UInt8(ascii: ".")
    }

    static func plistPath(_ version: DocumentVersion, _ name: String) -> String { "\(version)/\(name).plist" }
    static func twinPath(_ version: DocumentVersion, _ name: String) -> String { "\(version)/\(name).xml" }
    static func expectationPath(_ version: DocumentVersion, _ name: String) -> String {
        "expected/\(version)/\(name).xml"
    }

    func absolute(_ relative: String) -> String { path + "/" + relative }

    /// What a read found: the bytes, or that there is no file, or why it cannot be read.
    enum Read {
        case bytes([UInt8])
        case missing
        case unreadable(String)
    }

    /// The file at `relative`, refused when it, or a folder on the way inside this one, is a symbolic link.
    func read(_ relative: String) -> Read {
        var walked = path
        for component in relative.split(separator: "/") {
            walked += "/" + component
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: walked) else { return .missing }
            if attributes[.type] as? FileAttributeType == .typeSymbolicLink {
                return .unreadable("is a symbolic link; a kit folder holds plain files")
            }
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: walked)
        guard attributes?[.type] as? FileAttributeType == .typeRegular else { return .unreadable("is not a file") }
        if let size = (attributes?[.size] as? NSNumber)?.intValue, size > Self.maxFileBytes {
            return .unreadable("is \(size) bytes; at most \(Self.maxFileBytes)")
        }
        do {
            return .bytes(try AtomicFile.contents(of: walked, followingSymbolicLinks: false))
        } catch {
            return .unreadable(error.reason)
        }
    }

    /// What reading the manifest found.
    enum ManifestRead {
        /// There is none yet.
        case none
        case manifest(FormatManifest)
        /// It cannot be used: the problem says why.
        case invalid(FormatProblem)
    }

    /// The manifest, if there is one and it can be used.
    func manifest() -> ManifestRead {
        switch read(FormatManifest.fileName) {
        case .missing:
            return .none
        case .unreadable(let reason):
            return .invalid(FormatProblem(.manifestInvalid, version: "-", path: FormatManifest.fileName, reason))
        case .bytes(let bytes):
            switch FormatManifest.parse(bytes) {
            case .success(let manifest): return .manifest(manifest)
            case .failure(let error):
                return .invalid(
                    FormatProblem(.manifestInvalid, version: "-", path: FormatManifest.fileName, error.reason))
            }
        }
    }

    /// Version folders present on disk (names that read as `M.m`), sorted.
    func versionFolders() -> [DocumentVersion] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.compactMap { try? FormatManifest.parseVersion($0) }.sorted()
    }

    /// The names of the entries of the version folder `version` (`1.0/...`).
    func entries(of version: DocumentVersion) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: absolute(version.description))) ?? []).sorted {
            ExactString($0) < ExactString($1)
        }
    }

    /// Writes `bytes` to `relative` atomically, making its folders; `false` when the file already holds them.
    @discardableResult
    func write(_ bytes: [UInt8], to relative: String) throws -> Bool {
        if case .bytes(let existing) = read(relative), existing == bytes { return false }
        let target = absolute(relative)
        let folder = (target as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try AtomicFile.save(bytes, to: target, permissions: 0o644)
        return true
    }
}
