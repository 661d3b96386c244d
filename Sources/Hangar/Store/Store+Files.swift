import Foundation
public import PropertyList

extension Store {
    // MARK: Export

    /// Writes the document at `key` to `path` as a `.plist` file (binary, or XML), atomically: a reader of
    /// `path` sees the old file or the new one, never a part. Returns the revision written.
    @discardableResult
    public func export(
        key: String, in collection: String, to path: String, format: PropertyListFormat = .binary,
        revision: Int? = nil
    ) throws(HangarError) -> Int {
        let stored = try storedOrThrow(key: key, in: collection, revision: revision)
        try DocumentFiles.writeFile(
            stored, to: path, format: format, carryingKey: false, permissions: configuration.filePermissions)
        return stored.revision
    }

    /// Writes every document of `collection` into `directory` (created if needed), one file per key named
    /// so that any key is a safe file name (`a/b` → `a%2Fb.plist`). A file whose name cannot give its key back
    /// (shortened) carries the key inside (under the reserved key `hangarKey`); the others are the stored documents
    /// as they are. Every key comes back on import. Returns the paths written, in key order.
    @discardableResult
    public func exportCollection(_ collection: String, to directory: String, format: PropertyListFormat = .binary)
        throws(HangarError) -> [String]
    {
        try DocumentFiles.createFolder(directory, collection: collection, permissions: configuration.folderPermissions)
        let documents: [StoredDocument]
        do {
            documents = try read { transaction in
                try transaction.keys(in: collection).compactMap { try transaction.document(in: collection, key: $0) }
            }
        } catch let error as HangarError {
            throw error
        } catch {
            throw HangarError(.database, "\(error)", collection: collection)
        }
        var paths: [String] = []
        for stored in documents {
            let name = StoreFileNames.fileName(for: stored.key)
            let carryingKey = StoreFileNames.key(forFileName: name) != stored.key
            try DocumentFiles.writeFile(
                stored, to: directory + "/" + name, format: format, carryingKey: carryingKey,
                permissions: configuration.filePermissions)
            paths.append(directory + "/" + name)
        }
        return paths
    }

    private func storedOrThrow(key: String, in collection: String, revision: Int?) throws(HangarError) -> StoredDocument
    {
        let found: StoredDocument?
        do {
            found = try read { transaction in
                if let revision { return try transaction.document(in: collection, key: key, revision: revision) }
                return try transaction.document(in: collection, key: key)
            }
        } catch let error as HangarError {
            throw error
        } catch {
            throw HangarError(.database, "\(error)", collection: collection, key: key)
        }
        guard let found else {
            throw HangarError(
                .notFound, revision.map { "No revision \($0)" } ?? "No such document", collection: collection, key: key)
        }
        return found
    }

    // MARK: Import

    /// Reads a `.plist` file (any format the codecs read), checks that it is a document envelope (and, when the
    /// collection's options name a format, not of a newer major), and only then saves it under `key`: by
    /// default the key the file carries (`hangarKey`, written by export), else its file name without `.plist`,
    /// `%XX` decoded. Returns the new revision.
    @discardableResult
    public func importFile(
        _ path: String, into collection: String, key: String? = nil, expectedRevision: Int? = nil
    ) throws(HangarError) -> Int {
        let file = try DocumentFiles.readImportFile(
            path, collection: collection, key: key, encryption: configuration.encryption)
        return try writeRethrowingHangarErrors { transaction throws(HangarError) in
            try Self.save(file, in: collection, transaction: transaction, expectedRevision: expectedRevision)
        }
    }

    /// Imports `paths` as one unit: every file is read and checked first, then all are saved in one
    /// transaction, so either every file is stored or none is. A failure names the file
    /// (``HangarError/file``). Each file goes under the key it carries, or its file name's key (see
    /// ``importFile(_:into:key:expectedRevision:)``). `progress` is told how many files are read, then
    /// saved (`(done, total)`), every 100 files and at the end of each phase. Returns each file's key and
    /// new revision, in order.
    @discardableResult
    public func importFiles(
        _ paths: [String], into collection: String, progress: ((ImportProgress) -> Void)? = nil
    ) throws(HangarError) -> [(key: String, revision: Int)] {
        var files: [DocumentFiles.ImportFile] = []
        for (index, path) in paths.enumerated() {
            files.append(
                try DocumentFiles.readImportFile(
                    path, collection: collection, key: nil, encryption: configuration.encryption))
            if (index + 1) % 100 == 0 || index + 1 == paths.count {
                progress?(ImportProgress(phase: .reading, done: index + 1, total: paths.count))
            }
        }
        return try writeRethrowingHangarErrors { transaction throws(HangarError) in
            var results: [(key: String, revision: Int)] = []
            for (index, file) in files.enumerated() {
                results.append((file.key, try Self.save(file, in: collection, transaction: transaction)))
                if (index + 1) % 100 == 0 || index + 1 == files.count {
                    progress?(ImportProgress(phase: .saving, done: index + 1, total: files.count))
                }
            }
            return results
        }
    }

    private static func save(
        _ file: DocumentFiles.ImportFile, in collection: String, transaction: WriteTransaction,
        expectedRevision: Int? = nil
    ) throws(HangarError) -> Int {
        do {
            return try transaction.save(
                envelope: file.envelope, key: file.key, in: collection, expectedRevision: expectedRevision)
        } catch {
            throw DocumentFiles.fileError(error, file.path)
        }
    }

}

/// How far ``Store/importFiles(_:into:progress:)`` has got.
public struct ImportProgress: Sendable {
    /// What an import does: reads and checks every file, then saves them all.
    public enum Phase: Sendable {
        /// Reading and checking files.
        case reading
        /// Saving them, in one transaction.
        case saving
    }

    /// The phase.
    public let phase: Phase
    /// Files done in this phase.
    public let done: Int
    /// Files in all.
    public let total: Int
}

/// File names for keys: any key maps to a safe, reversible name.
///
/// Letters, digits, `-`, `_` and `.` (except a leading one) stay; every other byte of the key's UTF-8 is
/// written `%XX`. `"N12345"` → `N12345.plist`; `"a/b"` → `a%2Fb.plist`; `".hidden"` → `%2Ehidden.plist`.
package enum StoreFileNames {
    /// The content key under which ``Store/exportCollection(_:to:format:)`` writes a document's key into its
    /// file when the file name cannot give the key back (a key too long for a file name), so that import
    /// files it under that key. Import removes it; saves refuse content that uses it.
    package static let keyMetadataKey = "hangarKey"

    /// The file name (with `.plist`) for `key`.
    package static func fileName(for key: String) -> String {
        var name = ""
        for (index, byte) in key.utf8.enumerated() {
            let safe =
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || (byte == UInt8(ascii: ".") && index > 0)
            if safe {
                name.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                name += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        // A key too long for a file name keeps its first 200 or so characters (all ASCII by now) and gains a
        // digest of the whole key. Such a name does not give the key back: exported files carry their key
        // (``keyMetadataKey``), and import reads it from there.
        if name.utf8.count > 240 {
            // Cut before an escape rather than inside one (every `%` in a name starts an escape).
            let limit = name.utf8.index(name.utf8.startIndex, offsetBy: 200)
            var end = limit
            for back in [2, 1] where name.utf8[name.utf8.index(limit, offsetBy: -back)] == UInt8(ascii: "%") {
                end = name.utf8.index(limit, offsetBy: -back)
            }
            name =
                String(decoding: name.utf8[..<end], as: UTF8.self) + "~" + String(StoreFileNames.digest(key), radix: 16)
        }
        return name + ".plist"
    }

    /// The key a file name stands for: `.plist` dropped, `%XX` decoded.
    package static func key(forFileName fileName: String) -> String {
        var name = Substring(fileName)
        if name.hasSuffix(".plist") { name = name.dropLast(6) }
        var bytes: [UInt8] = []
        var index = name.utf8.startIndex
        let utf8 = name.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), let first = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex),
                let second = utf8.index(index, offsetBy: 2, limitedBy: utf8.endIndex), second < utf8.endIndex,
                let value = UInt8(String(decoding: utf8[first...second], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index = utf8.index(after: second)
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// FNV-1a over the key's bytes: stable across runs and platforms.
    static func digest(_ key: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return hash
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
