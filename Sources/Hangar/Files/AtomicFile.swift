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
public enum AtomicFile {
    /// An I/O failure, with the path and the system's reason (`No such file or directory`).
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The file the operation was about.
        public let path: String
        /// The system's words for what went wrong.
        public let reason: String

        public var description: String { "\(path): \(reason)" }
    }

    /// The whole contents of the file at `path`; `-` reads standard input.
    public static func contents(of path: String) throws(Failure) -> [UInt8] {
        let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
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
    /// permissions, or gets 0644 (less the umask) when there was none.
    public static func save(_ bytes: [UInt8], to path: String) throws(Failure) {
        let directory = parentDirectory(of: path)
        var mode: mode_t = 0o644
        var existing = stat()
        if stat(path, &existing) == 0 { mode = existing.st_mode & 0o7777 }

        var template = Array("\(directory)/.\(baseName(of: path)).hangar-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { mkstemp($0) } ?? -1
        }
        guard descriptor >= 0 else { throw failure(directory) }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var committed = false
        defer {
            if !committed { unlink(temporary) }
        }
        do {
            defer { close(descriptor) }
            try writeAll(bytes, to: descriptor, path: temporary)
            guard fchmod(descriptor, mode) == 0, fsync(descriptor) == 0 else { throw failure(temporary) }
        }
        guard rename(temporary, path) == 0 else { throw failure(path) }
        committed = true
        // Flush the folder so the new name is on disk too.
        let folder = open(directory, O_RDONLY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }

    /// Writes `bytes` to standard output.
    public static func writeToStandardOutput(_ bytes: [UInt8]) throws(Failure) {
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
        Failure(path: path, reason: String(cString: strerror(errno)))
    }

    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func baseName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
