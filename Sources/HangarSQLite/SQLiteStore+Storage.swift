import Foundation
public import Hangar

/// What a SQLite store tells through ``Hangar/DocumentStore`` of its file: its path, the sizes of the file and its
/// write-ahead log, SQLite's integrity check; ``backup(to:)`` (in `SQLiteStore+Maintenance.swift`) is the backup.
extension SQLiteStore {
    /// `SQLite`, the store file's path, and the sizes of the file and of its write-ahead log (0 when there is none);
    /// a store in memory has no file.
    public func storageFacts() async -> StorageFacts {
        guard path != ":memory:" else { return StorageFacts(engine: "SQLite", location: path) }
        return StorageFacts(
            engine: "SQLite", location: path, file: path, size: Self.fileSize(path),
            writeAheadLogSize: Self.fileSize(path + "-wal") ?? 0)
    }

    /// SQLite's integrity check (``checkIntegrity()``), its `ok` left out: empty for a sound file.
    public func storageProblems() async throws -> [String]? {
        try checkIntegrity().filter { !$0.hasSameBytes(as: "ok") }
    }

    /// The size of the file at `path`, in bytes; `nil` when there is none.
    static func fileSize(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }
}
