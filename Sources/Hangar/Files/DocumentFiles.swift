import Foundation
package import PropertyList

/// Documents as `.plist` files, for every engine's export and import: the file a stored document is written as,
/// and the checks a file passes before it is imported.
package enum DocumentFiles {
    /// Writes the document as it is stored (binary) or re-encoded; when `carryingKey`, with its key added
    /// under ``StoreFileNames/keyMetadataKey``, for a file whose name does not give the key back. `sweeping`: as
    /// ``AtomicFile/save(_:to:permissions:sweeping:)``.
    package static func writeFile(
        _ stored: StoredDocument, to path: String, format: PropertyListFormat, carryingKey: Bool,
        permissions: UInt16, sweeping: Bool = true
    ) throws(HangarError) {
        guard carryingKey || format != .binary else {
            try save(stored.plaintextBody(), of: stored, to: path, permissions: permissions, sweeping: sweeping)
            return
        }
        guard case .dictionary(var content) = try stored.envelope() else {
            throw HangarError(
                .invalidDocument, "The stored document is not a dictionary", collection: stored.collection,
                key: stored.key)
        }
        if carryingKey { content[StoreFileNames.keyMetadataKey] = .string(stored.key) }
        let bytes: [UInt8]
        do {
            if format != .binary, let readable = try? PropertyList.dictionary(content).encoded(as: format) {
                bytes = readable
            } else {
                // A key XML cannot hold (control characters) is carried as its UTF-8 bytes.
                if format != .binary && carryingKey {
                    content[StoreFileNames.keyMetadataKey] = .data(Array(stored.key.utf8))
                }
                bytes = try PropertyList.dictionary(content).encoded(as: format)
            }
        } catch {
            throw HangarError(
                .invalidDocument, "Cannot write the document as \(format)", collection: stored.collection,
                key: stored.key, underlying: error)
        }
        try save(bytes, of: stored, to: path, permissions: permissions, sweeping: sweeping)
    }

    /// Writes `bytes` to `path` atomically (``AtomicFile/save(_:to:permissions:sweeping:)``): a full disk or any
    /// other failure leaves the file at `path` as it was, and no temporary file.
    package static func save(
        _ bytes: [UInt8], of stored: StoredDocument, to path: String, permissions: UInt16, sweeping: Bool = true
    ) throws(HangarError) {
        do {
            try AtomicFile.save(bytes, to: path, permissions: permissions, sweeping: sweeping)
        } catch {
            throw HangarError(
                error.code, "Cannot write \(path)", collection: stored.collection, key: stored.key, underlying: error)
        }
    }

    /// A file read for import: where it came from, the key it goes under, its envelope without the key.
    package struct ImportFile {
        package let path: String
        package let key: String
        package let envelope: PropertyList
    }

    package static func readImportFile(
        _ path: String, collection: String, key explicitKey: String?, encryption: (any DocumentEncryption)? = nil
    ) throws(HangarError) -> ImportFile {
        let fileNameKey = StoreFileNames.key(forFileName: (path as NSString).lastPathComponent)
        if let link = symbolicLink(in: path) {
            throw fileError(
                HangarError(
                    .io, "Not imported: \(link) is a symbolic link (import reads files only where they are)",
                    collection: collection, key: fileNameKey), path)
        }
        let bytes: [UInt8]
        do {
            bytes = try AtomicFile.contents(of: path, followingSymbolicLinks: false)
        } catch {
            throw fileError(
                HangarError(.io, "Cannot read the file", collection: collection, key: fileNameKey, underlying: error),
                path)
        }
        var envelope: PropertyList
        do {
            envelope = try PropertyList.decode(bytes).value
        } catch {
            throw fileError(
                HangarError(
                    .invalidDocument, "Not a property list", collection: collection, key: fileNameKey,
                    underlying: error), path)
        }
        if let sealed = SealedFile(envelope) {
            envelope = try sealed.open(encryption: encryption, path: path)
        }
        var carried: String?
        if case .dictionary(var content) = envelope, let value = content[StoreFileNames.keyMetadataKey] {
            switch value {
            case .string(let text): carried = text
            case .data(let bytes) where String(validating: bytes, as: UTF8.self) != nil:
                carried = String(decoding: bytes, as: UTF8.self)
            default:
                throw fileError(
                    HangarError(
                        .invalidDocument, "\(StoreFileNames.keyMetadataKey) is not a string or UTF-8 data",
                        collection: collection, key: fileNameKey), path)
            }
            content[StoreFileNames.keyMetadataKey] = nil
            envelope = .dictionary(content)
        }
        let key = explicitKey ?? carried ?? fileNameKey
        do {
            _ = try DocumentRules.envelopeVersion(envelope, collection: collection, key: key)
            try DocumentRules.checkName(key, what: "key")
        } catch {
            throw fileError(error, path)
        }
        return ImportFile(path: path, key: key, envelope: envelope)
    }

    /// The file, or the folder holding it, when either is a symbolic link: import refuses both, so that a link
    /// in an import folder never reads a file from elsewhere.
    static func symbolicLink(in path: String) -> String? {
        var info = stat()
        if lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK { return path }
        let folder = AtomicFile.parentDirectory(of: path)
        if folder != "/", folder != ".", lstat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK {
            return folder
        }
        return nil
    }

    /// Creates an export folder (and its parents) with `permissions`, whatever the umask.
    package static func createFolder(_ directory: String, collection: String, permissions: UInt16)
        throws(HangarError)
    {
        do {
            try AtomicFile.createDirectory(directory, permissions: permissions)
        } catch {
            throw HangarError(error.code, "Cannot create \(directory)", collection: collection, underlying: error)
        }
    }

    package static func fileError(_ error: HangarError, _ path: String) -> HangarError {
        var error = error
        error.file = path
        return error
    }
}
