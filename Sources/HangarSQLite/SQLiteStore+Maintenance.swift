import Foundation
import Hangar

/// Integrity checks, online backups and checkpoints: each takes the writer's turn, and each refuses a closed store.
extension SQLiteStore {
    // MARK: Maintenance

    /// SQLite's integrity check: `["ok"]` for a sound store, otherwise the problems it found.
    public func checkIntegrity() throws(HangarError) -> [String] {
        try writer.withConnection { (connection) throws(HangarError) -> [String] in
            try requireOpen()
            return try connection.integrityCheck(limit: nil)
        }
    }

    /// Copies the whole store, consistently, to a new file at `destination` (SQLite's online backup), while
    /// readers and writers go on. The copy is written beside the destination and renamed into place.
    ///
    /// The copy advances 256 pages (1 MiB) at a time, each step taking the writer's turn
    /// only for as long as it copies them: the writers of this process commit between steps, in turn with it.
    /// What they commit through this store is copied as it is written, and the copy is the store as of the
    /// last step. A commit through another connection (another store on the file, another process) makes the
    /// copy start over; after three such restarts the rest is copied in one step, writers of
    /// this process waiting for it.
    public func backup(to destination: String) throws(HangarError) {
        try requireOpen()
        let temporary = destination + ".hangar-backup-\(UUID().uuidString)"
        do {
            try AtomicFile.createEmptyFile(temporary, permissions: configuration.filePermissions)
        } catch {
            throw HangarError(error.code, "Backup to \(destination) failed: \(error.description)")
        }
        do throws(SQLiteError) {
            let target = try SQLiteConnection(path: temporary, mode: .readWrite, busyTimeout: 5_000)
            // The last step commits the copy with the writer held off: no fsync then; one below, before the
            // rename, with the writers going on.
            try target.execute("PRAGMA synchronous = OFF")
            let backup = try writer.withConnection { (connection) throws(SQLiteError) in
                guard !connection.isClosed else { throw SQLiteError.closed }
                return try connection.startBackup(into: target)
            }
            // Finished while this store's writers are held off: finishing detaches it from the connection.
            defer { writer.withConnection { _ in backup.finish() } }
            var restarts = 0
            var copied: Int32 = 0
            copying: while true {
                let pages = restarts < Self.backupRestartLimit ? Self.backupPagesPerStep : -1
                let progress = try writer.withConnection { (connection) throws(SQLiteError) in
                    // A close waits for the writer's turn, not for the whole backup: it ends the copy here.
                    guard !connection.isClosed else { throw SQLiteError.closed }
                    return try backup.step(pages: pages)
                }
                switch progress {
                case .done:
                    break copying
                case .more(let now):
                    // No progress: a commit through another connection made it start over.
                    if now <= copied { restarts += 1 }
                    copied = now
                case .busy:
                    usleep(10_000)
                }
            }
        } catch {
            Self.removeBackupFiles(temporary)
            try requireOpen()
            throw HangarError(
                HangarError.Code(sqliteResult: error.code, systemErrno: error.systemErrno),
                "Backup to \(destination) failed: \(error.message)", resultCode: error.code)
        }
        do {
            try AtomicFile.flushAndRename(temporary, to: destination)
        } catch {
            Self.removeBackupFiles(temporary)
            throw HangarError(error.code, "Cannot move the backup into place at \(destination): \(error.description)")
        }
    }

    /// Removes a backup's temporary file and the journal SQLite may have left beside it.
    private static func removeBackupFiles(_ temporary: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(temporary + suffix) }
    }

    /// Pages a backup step copies (with SQLite's 4 KiB pages, 1 MiB).
    static let backupPagesPerStep: Int32 = 256
    /// Restarts by commits through other connections after which a backup copies the rest in one step.
    static let backupRestartLimit = 3

    /// Moves the write-ahead log into the database file and truncates it (done automatically as it grows;
    /// useful before copying the file by other means).
    public func checkpoint() throws(HangarError) {
        try writer.withConnection { (connection) throws(HangarError) in
            try requireOpen()
            do throws(SQLiteError) {
                _ = try connection.text("PRAGMA wal_checkpoint(TRUNCATE)")
            } catch {
                throw HangarError(error)
            }
        }
    }
}
