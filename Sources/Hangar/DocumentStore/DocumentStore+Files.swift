import Foundation
public import PropertyList

/// Export and import, written once for every engine: a document exported from one engine and imported into
/// another is stored byte for byte as it was. Files and folders are created with the configuration's
/// ``StoreConfiguration/filePermissions`` and ``StoreConfiguration/folderPermissions``.
extension DocumentStore {
    /// Writes the document at `key` (or one of its kept revisions) to `path` as a `.plist` file (binary, or
    /// XML), atomically: a reader of `path` sees the old file or the new one, never a part. Returns the revision
    /// written.
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
        try DocumentFiles.writeFile(
            found, to: path, format: format, carryingKey: false, permissions: configuration.filePermissions)
        return found.revision
    }

    /// Writes every document of `collection` into `directory` (created if needed), one file per key named so
    /// that any key is a safe file name (`a/b` → `a%2Fb.plist`; the rule is in the Files and the CLI article).
    /// A file whose name cannot give its key back (shortened) carries the key inside (under the reserved key
    /// `hangarKey`); the others are the stored documents as they are. Every key comes back on import. Returns
    /// the paths written, in key order.
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
        try DocumentFiles.createFolder(directory, collection: collection, permissions: configuration.folderPermissions)
        let documents = try await read { try await $0.documents(in: collection) }
        // One sweep of the folder for what killed writers left, not one per file (each reads the whole folder).
        AtomicFile.removeAbandonedTemporaryFiles(in: directory)
        var paths: [String] = []
        for stored in documents {
            let name = StoreFileNames.fileName(for: stored.key)
            let carryingKey = StoreFileNames.key(forFileName: name) != stored.key
            if sealed, let encryption {
                try SealedFile.write(
                    stored, encryption: encryption, to: directory + "/" + name, format: format,
                    permissions: configuration.filePermissions, sweeping: false)
            } else {
                try DocumentFiles.writeFile(
                    stored, to: directory + "/" + name, format: format, carryingKey: carryingKey,
                    permissions: configuration.filePermissions, sweeping: false)
            }
            paths.append(directory + "/" + name)
        }
        return paths
    }

    /// Imports `paths` as one unit: every file is read and checked first, then all are saved in one
    /// transaction, so either every file is stored or none is. A failure names the file (``HangarError/file``).
    /// Each file goes under the key it carries, or its file name's key (see
    /// ``importFile(_:into:key:expectedRevision:)``). `progress` is told how many files are read, then saved,
    /// every 100 files and at the end of each phase. Returns each file's key and new revision, in order.
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

    /// Reads a `.plist` file (any format the codecs read, or a sealed export), checks that it is a document
    /// envelope (and, when the collection's options name a format, not of a newer major), and only then saves
    /// it under `key`: by default the key the file carries (`hangarKey`, written by export), else its file name
    /// without `.plist`, `%XX` decoded. Returns the new revision.
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
