import Foundation
public import PropertyList

extension Store {
    /// Writes mirrors after a commit. The data is committed whatever happens here; a failure says so.
    func writeMirrors(_ mirrors: [(directory: String, key: String, bytes: [UInt8]?)]) throws(StoreError) {
        for mirror in mirrors {
            let path = mirror.directory + "/" + StoreFileNames.fileName(for: mirror.key)
            do {
                if let bytes = mirror.bytes {
                    try FileManager.default.createDirectory(atPath: mirror.directory, withIntermediateDirectories: true)
                    try AtomicFile.save(bytes, to: path)
                } else if FileManager.default.fileExists(atPath: path) {
                    try FileManager.default.removeItem(atPath: path)
                }
            } catch {
                throw StoreError(
                    .io, "Saved, but the mirror file \(path) could not be updated", key: mirror.key, underlying: error)
            }
        }
    }

    // MARK: Export

    /// Writes the document at `key` to `path` as a `.plist` file (binary, or XML), atomically: a reader of
    /// `path` sees the old file or the new one, never a part. Returns the revision written.
    @discardableResult
    public func export(
        key: String, in collection: String, to path: String, format: PropertyListFormat = .binary,
        revision: Int? = nil
    ) throws(StoreError) -> Int {
        let stored = try storedOrThrow(key: key, in: collection, revision: revision)
        try Self.writeFile(stored, to: path, format: format)
        return stored.revision
    }

    /// Writes every document of `collection` into `directory` (created if needed), one file per key named
    /// so that any key is a safe file name (``StoreFileNames``). Returns the paths written, in key order.
    @discardableResult
    public func exportCollection(_ collection: String, to directory: String, format: PropertyListFormat = .binary)
        throws(StoreError) -> [String]
    {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError(.io, "Cannot create \(directory)", collection: collection, underlying: error)
        }
        let documents: [StoredDocument]
        do {
            documents = try read { transaction in
                try transaction.keys(in: collection).compactMap { try transaction.document(in: collection, key: $0) }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.database, "\(error)", collection: collection)
        }
        var paths: [String] = []
        for stored in documents {
            let path = directory + "/" + StoreFileNames.fileName(for: stored.key)
            try Self.writeFile(stored, to: path, format: format)
            paths.append(path)
        }
        return paths
    }

    private func storedOrThrow(key: String, in collection: String, revision: Int?) throws(StoreError) -> StoredDocument
    {
        let found: StoredDocument?
        do {
            found = try read { transaction in
                if let revision { return try transaction.document(in: collection, key: key, revision: revision) }
                return try transaction.document(in: collection, key: key)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.database, "\(error)", collection: collection, key: key)
        }
        guard let found else {
            throw StoreError(
                .notFound, revision.map { "No revision \($0)" } ?? "No such document", collection: collection, key: key)
        }
        return found
    }

    private static func writeFile(_ stored: StoredDocument, to path: String, format: PropertyListFormat)
        throws(StoreError)
    {
        var bytes = stored.body
        if format != .binary {
            do {
                bytes = try stored.envelope().encoded(as: format)
            } catch {
                throw StoreError(
                    .invalidDocument, "Cannot write the document as \(format)", collection: stored.collection,
                    key: stored.key, underlying: error)
            }
        }
        do {
            try AtomicFile.save(bytes, to: path)
        } catch {
            throw StoreError(
                .io, "Cannot write \(path)", collection: stored.collection, key: stored.key, underlying: error)
        }
    }

    // MARK: Import

    /// Reads a `.plist` file (any format the codecs read), checks that it is a document envelope (and, when the
    /// collection's options name a format, not of a newer major), and only then saves it under `key` (by
    /// default the file name without `.plist`, as ``StoreFileNames`` decodes it). Returns the new revision.
    @discardableResult
    public func importFile(
        _ path: String, into collection: String, key: String? = nil, expectedRevision: Int? = nil
    ) throws(StoreError) -> Int {
        let key = key ?? StoreFileNames.key(forFileName: (path as NSString).lastPathComponent)
        let bytes: [UInt8]
        do {
            bytes = try AtomicFile.contents(of: path)
        } catch {
            throw StoreError(.io, "Cannot read \(path)", collection: collection, key: key, underlying: error)
        }
        let envelope: PropertyList
        do {
            envelope = try PropertyList.decode(bytes).value
        } catch {
            throw StoreError(
                .invalidDocument, "\(path) is not a property list", collection: collection, key: key, underlying: error)
        }
        do {
            return try write { transaction in
                try transaction.save(envelope: envelope, key: key, in: collection, expectedRevision: expectedRevision)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.database, "\(error)", collection: collection, key: key)
        }
    }
}

/// File names for keys: any key maps to a safe, reversible name.
///
/// Letters, digits, `-`, `_` and `.` (except a leading one) stay; every other byte of the key's UTF-8 is
/// written `%XX`. `"N12345"` → `N12345.plist`; `"a/b"` → `a%2Fb.plist`; `".hidden"` → `%2Ehidden.plist`.
public enum StoreFileNames {
    /// The content key an exported file carries its document's key under, so that import files it under
    /// that key whatever the file is named. Import removes it; saves refuse content that uses it.
    public static let keyMetadataKey = "hangarKey"

    /// The file name (with `.plist`) for `key`.
    public static func fileName(for key: String) -> String {
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
        // A key too long for a file name keeps its first 200 characters (all ASCII by now) and gains a
        // digest of the whole key.
        if name.utf8.count > 240 {
            name = String(name.prefix(200)) + "~" + String(StoreFileNames.digest(key), radix: 16)
        }
        return name + ".plist"
    }

    /// The key a file name stands for: `.plist` dropped, `%XX` decoded.
    public static func key(forFileName fileName: String) -> String {
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
