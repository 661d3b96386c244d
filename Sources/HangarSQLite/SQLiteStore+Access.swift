import Foundation
import Hangar

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Opening a store for writing (its folder and file created with the configured permissions) or for reading
// only (nothing created; a read-only file system read as immutable), and refusing writes to the latter.

extension SQLiteStore {
    /// Creates the store's folder (``StoreConfiguration/folderPermissions``) and an empty database file
    /// (``StoreConfiguration/filePermissions``, whatever the umask) when they are missing: SQLite would create
    /// the file with its own default, and gives the `-wal` and `-shm` files the database file's permissions.
    static func prepareFile(at path: String, configuration: StoreConfiguration) throws(HangarError) {
        let folder = AtomicFile.parentDirectory(of: path)
        do {
            try AtomicFile.createDirectory(folder, permissions: configuration.folderPermissions)
            try AtomicFile.createEmptyFile(path, permissions: configuration.filePermissions)
        } catch {
            throw HangarError(error.code, "Cannot create the store at \(path): \(error.description)")
        }
    }

    /// Where a read-only store's connections open `path`: the path itself, or on a read-only file system
    /// (where SQLite could not make the shared-memory file a write-ahead log needs) an `immutable` URI, which
    /// reads without locks: no process can be writing there. Refuses a missing file: nothing is created.
    static func readOnlyLocation(of path: String) throws(HangarError) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let number = errno
            throw HangarError(
                number == ENOENT ? .notFound : HangarError.Code(systemErrno: number) ?? .io,
                "Cannot open the store at \(path) for reading: \(String(cString: strerror(number)))")
        }
        var fileSystem = statvfs()
        guard statvfs(path, &fileSystem) == 0, fileSystem.f_flag & UInt(ST_RDONLY) != 0 else { return path }
        var uri = "file:"
        for scalar in path.unicodeScalars {
            switch scalar {
            case "%": uri += "%25"
            case "?": uri += "%3F"
            case "#": uri += "%23"
            default: uri.unicodeScalars.append(scalar)
            }
        }
        return uri + "?immutable=1"
    }

    /// Throws ``HangarError/readOnly`` for a store opened read-only: every write calls it before it starts.
    func requireWritable() throws(HangarError) {
        guard configuration.access == .readOnly else { return }
        throw HangarError(.readOnly, "The store at \(path) is open read-only; it cannot be written")
    }
}
