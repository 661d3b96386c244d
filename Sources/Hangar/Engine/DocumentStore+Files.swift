import Foundation
public import PropertyList

/// Export and import for every engine: the same files as the SQLite store's (``Store/export(key:in:to:format:revision:)``
/// and the rest), so a document exported from one engine and imported into another is stored byte for byte
/// as it was.
extension DocumentStore {
    /// Writes the document at `key` (or one of its kept revisions) to `path` as a `.plist` file, atomically.
    /// Returns the revision written.
    @discardableResult
    public func export(
        key: String, in collection: String, to path: String, format: PropertyListFormat = .binary,
        revision: Int? = nil
    ) async throws -> Int {
        let found = try await read { transaction in
            if let revision { return try await transaction.document(in: collection, key: key, revision: revision) }
            return try await transaction.document(in: collection, key: key)
        }
        guard let found else {
            throw HangarError(
                .notFound, revision.map { "No revision \($0)" } ?? "No such document", collection: collection, key: key)
        }
        try DocumentFiles.writeFile(found, to: path, format: format, carryingKey: false)
        return found.revision
    }

    /// Writes every document of `collection` into `directory` (created if needed), one file per key, named as
    /// ``Store/exportCollection(_:to:format:)`` names them. Returns the paths written, in key order.
    ///
    /// Files hold the plaintext envelope unless `sealed`: each file then holds the body sealed with the current
    /// key, as the Encryption article describes (a plaintext body is sealed for the file), and importing it needs
    /// that key.
    @discardableResult
    public func exportCollection(
        _ collection: String, to directory: String, format: PropertyListFormat = .binary, sealed: Bool = false
    ) async throws -> [String] {
        let encryption = configuration.encryption
        if sealed, encryption == nil {
            throw HangarError(.invalidConfiguration, "A sealed export needs a store opened with encryption")
        }
        try DocumentFiles.createFolder(directory, collection: collection)
        let documents = try await read { try await $0.documents(in: collection) }
        var paths: [String] = []
        for stored in documents {
            let name = StoreFileNames.fileName(for: stored.key)
            let carryingKey = StoreFileNames.key(forFileName: name) != stored.key
            if sealed, let encryption {
                try SealedFile.write(stored, encryption: encryption, to: directory + "/" + name, format: format)
            } else {
                try DocumentFiles.writeFile(
                    stored, to: directory + "/" + name, format: format, carryingKey: carryingKey)
            }
            paths.append(directory + "/" + name)
        }
        return paths
    }

    /// Imports `paths` as one unit, as ``Store/importFiles(_:into:progress:)`` does: every file is read and
    /// checked first, then all are saved in one transaction. `progress` is told how many files are read, then
    /// saved, every 100 files and at the end of each phase. Returns each file's key and new revision.
    @discardableResult
    public func importFiles(
        _ paths: [String], into collection: String, progress: ((ImportProgress) -> Void)? = nil
    ) async throws -> [(key: String, revision: Int)] {
        var files: [DocumentFiles.ImportFile] = []
        for (index, path) in paths.enumerated() {
            files.append(
                try DocumentFiles.readImportFile(
                    path, collection: collection, key: nil, encryption: configuration.encryption))
            if (index + 1) % 100 == 0 || index + 1 == paths.count {
                progress?(ImportProgress(phase: .reading, done: index + 1, total: paths.count))
            }
        }
        let checked = files
        let results = try await write { transaction in
            var results: [ImportedFile] = []
            for (index, file) in checked.enumerated() {
                do throws(HangarError) {
                    let revision = try await transaction.save(envelope: file.envelope, key: file.key, in: collection)
                    results.append(ImportedFile(key: file.key, revision: revision))
                } catch {
                    throw DocumentFiles.fileError(error, file.path)
                }
                if (index + 1) % 100 == 0 || index + 1 == checked.count {
                    progress?(ImportProgress(phase: .saving, done: index + 1, total: checked.count))
                }
            }
            return results
        }
        return results.map { ($0.key, $0.revision) }
    }

    /// Imports one `.plist` file under `key` (by default the key it carries, else its file name's), checked
    /// before anything is saved. Returns the new revision.
    @discardableResult
    public func importFile(_ path: String, into collection: String, key: String? = nil, expectedRevision: Int? = nil)
        async throws -> Int
    {
        let file = try DocumentFiles.readImportFile(
            path, collection: collection, key: key, encryption: configuration.encryption)
        return try await write { transaction in
            do throws(HangarError) {
                return try await transaction.save(
                    envelope: file.envelope, key: file.key, in: collection, expectedRevision: expectedRevision)
            } catch {
                throw DocumentFiles.fileError(error, file.path)
            }
        }
    }
}

/// A file imported: its key and new revision.
private struct ImportedFile: Sendable {
    let key: String
    let revision: Int
}
