#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads and atomically replaces whole files, the way `writeToFile:atomically:` does: the bytes go to a
/// temporary file in the same folder, which is flushed to disk and renamed over the target, and the
/// folder is flushed so the rename itself survives a crash. A reader sees the old file or the new one,
/// never a part of either.
package enum AtomicFile {
    /// An I/O failure, with the path and the system's reason (`No such file or directory`).
    package struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The file the operation was about.
        package let path: String
        /// The system's words for what went wrong.
        package let reason: String
        /// The system's `errno`, 0 when the failure was not the system's.
        package var systemErrno: Int32 = 0

        package var description: String { "\(path): \(reason)" }

        /// The ``HangarError/Code`` for this failure: ``HangarError/Code/diskFull`` for a full disk, and so on.
        package var code: HangarError.Code { HangarError.Code(systemErrno: systemErrno) ?? .io }
    }

    /// The whole contents of the file at `path`; `-` reads standard input. Unless `followingSymbolicLinks`, a
    /// symbolic link at `path` is refused (`ELOOP`).
    package static func contents(of path: String, followingSymbolicLinks: Bool = true) throws(Failure) -> [UInt8] {
        let flags = O_RDONLY | O_CLOEXEC | (followingSymbolicLinks ? 0 : O_NOFOLLOW)
        let descriptor = path == "-" ? STDIN_FILENO : open(path, flags)
        guard descriptor >= 0 else { throw failure(path) }
        defer { if path != "-" { close(descriptor) } }
        var info = stat()
        if fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw Failure(path: path, reason: "Is a directory")
        }
        var bytes: [UInt8] = []
        if fstat(descriptor, &info) == 0, info.st_size > 0 { bytes.reserveCapacity(Int(info.st_size)) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(path)
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return bytes
    }

    /// Replaces the file at `path` with `bytes`, atomically and durably. The new file keeps the old one's
    /// permissions, or gets `permissions` (whatever the umask) when there was none. On any failure (a full
    /// disk included) the old file is left as it was and the temporary file is removed.
    ///
    /// A writer killed half-way leaves its temporary file (`.NAME.hangar-XXXXXX`) behind; the next save of the
    /// same file removes such files once no live writer holds them (each writer keeps its temporary file
    /// locked with `flock` until it is renamed). Unless `sweeping`: a writer of many files into one folder
    /// sweeps it once instead (``removeAbandonedTemporaryFiles(in:)``), as each sweep reads the whole folder.
    package static func save(_ bytes: [UInt8], to path: String, permissions: UInt16 = 0o600, sweeping: Bool = true)
        throws(Failure)
    {
        let directory = parentDirectory(of: path)
        let prefix = ".\(baseName(of: path)).hangar-"
        var mode = mode_t(permissions)
        var existing = stat()
        if stat(path, &existing) == 0 { mode = existing.st_mode & 0o7777 }

        let (descriptor, temporary) = try lockedTemporaryFile(in: directory, prefix: prefix)
        var committed = false
        defer {
            if !committed { unlink(temporary) }
            // Closing releases the lock, only after the rename: until then a sweeper leaves the file alone.
            close(descriptor)
        }
        try writeAll(bytes, to: descriptor, path: temporary)
        guard fchmod(descriptor, mode) == 0, fsync(descriptor) == 0 else { throw failure(temporary) }
        guard rename(temporary, path) == 0 else { throw failure(path) }
        committed = true
        // Flush the folder so the new name is on disk too.
        let folder = open(directory, O_RDONLY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
        if sweeping { removeAbandonedTemporaryFiles(in: directory, prefix: prefix) }
    }

    /// Moves a finished file written by other means (a SQLite backup) into place at `path`, durably: flushes it,
    /// renames it over `path` and flushes the folder. On failure nothing is renamed.
    package static func flushAndRename(_ temporary: String, to path: String) throws(Failure) {
        let descriptor = open(temporary, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(temporary) }
        guard fsync(descriptor) == 0 else {
            let failed = failure(temporary)
            close(descriptor)
            throw failed
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else { throw failure(path) }
        let folder = open(parentDirectory(of: path), O_RDONLY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }

    /// A new temporary file `directory/prefixXXXXXX`, open and locked.
    private static func lockedTemporaryFile(in directory: String, prefix: String) throws(Failure) -> (Int32, String) {
        while true {
            var template = Array("\(directory)/\(prefix)XXXXXX".utf8CString)
            let descriptor = template.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress.map { mkstemp($0) } ?? -1
            }
            guard descriptor >= 0 else { throw failure(directory) }
            let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
            // Between mkstemp and flock a sweeper may have found the file unlocked and removed it: start over.
            if isSameFile(descriptor, temporary) { return (descriptor, temporary) }
            close(descriptor)
        }
    }

    /// Removes every temporary file of ``save(_:to:permissions:sweeping:)`` in `directory` (`.NAME.hangar-XXXXXX`)
    /// whose writer is gone: their lock is free.
    package static func removeAbandonedTemporaryFiles(in directory: String) {
        removeAbandonedTemporaryFiles(in: directory, prefix: nil)
    }

    /// Removes `directory/prefixXXXXXX` files (any `.NAME.hangar-XXXXXX` when `prefix` is nil) whose writer is
    /// gone: their lock is free.
    private static func removeAbandonedTemporaryFiles(in directory: String, prefix: String?) {
        guard let folder = opendir(directory) else { return }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            // Read the name in place: a `dirent` may be shorter than its declared `d_name`, so copying the whole
            // field can read past the end of readdir's buffer (a crash seen on Linux, exporting 1,000 files).
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: $0.pointee)) {
                    String(cString: $0)
                }
            }
            guard isTemporaryName(name, prefix: prefix) else { continue }
            let candidate = directory + "/" + name
            let descriptor = open(candidate, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            // A live writer holds the lock until its rename; a free lock on a file still so named is abandoned.
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, isSameFile(descriptor, candidate) else { continue }
            unlink(candidate)
        }
    }

    /// Whether `name` is `prefixXXXXXX`, or with no `prefix` any `.NAME.hangar-XXXXXX`.
    private static func isTemporaryName(_ name: String, prefix: String?) -> Bool {
        if let prefix { return name.utf8.count == prefix.utf8.count + 6 && name.hasPrefix(prefix) }
        let bytes = Array(name.utf8)
        let marker = Array(".hangar-".utf8)
        guard bytes.count > 1 + marker.count + 6, bytes[0] == UInt8(ascii: ".") else { return false }
        return bytes[(bytes.count - 6 - marker.count)..<(bytes.count - 6)].elementsEqual(marker)
    }

    private static func isSameFile(_ descriptor: Int32, _ path: String) -> Bool {
        var opened = stat()
        var named = stat()
        return fstat(descriptor, &opened) == 0 && lstat(path, &named) == 0 && opened.st_ino == named.st_ino
            && opened.st_dev == named.st_dev
    }

    /// Creates the folder at `path` and its missing parents with `permissions` (whatever the umask); folders
    /// that exist are left as they are.
    package static func createDirectory(_ path: String, permissions: UInt16) throws(Failure) {
        var info = stat()
        if path.isEmpty || stat(path, &info) == 0 { return }
        let parent = parentDirectory(of: path)
        if parent != path { try createDirectory(parent, permissions: permissions) }
        guard mkdir(path, mode_t(permissions)) == 0 else {
            if errno == EEXIST { return }
            throw failure(path)
        }
        guard chmod(path, mode_t(permissions)) == 0 else { throw failure(path) }
    }

    /// Creates an empty file at `path` with `permissions` (whatever the umask) unless one exists.
    package static func createEmptyFile(_ path: String, permissions: UInt16) throws(Failure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(permissions))
        guard descriptor >= 0 else {
            if errno == EEXIST { return }
            throw failure(path)
        }
        defer { close(descriptor) }
        guard fchmod(descriptor, mode_t(permissions)) == 0 else { throw failure(path) }
    }

    /// Writes `bytes` to standard output.
    package static func writeToStandardOutput(_ bytes: [UInt8]) throws(Failure) {
        try writeAll(bytes, to: STDOUT_FILENO, path: "-")
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(Failure) {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(path)
            }
            written += count
        }
    }

    private static func failure(_ path: String) -> Failure {
        let number = errno
        return Failure(path: path, reason: String(cString: strerror(number)), systemErrno: number)
    }

    package static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func baseName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
