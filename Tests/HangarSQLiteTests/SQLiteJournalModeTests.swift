import Foundation
import HangarTestSupport
import Testing

@testable import Hangar
@testable import HangarSQLite

@Suite struct SQLiteJournalModeTests {
    @Test func aFileSystemWithoutWriteAheadLogIsAnError() throws {
        let path = try temporaryDirectory() + "/nowal.sqlite"
        // SQLite's "unix-none" VFS has no shared memory, as some network file systems: WAL cannot be set.
        let connection = try SQLiteConnection(path: "file:\(path)?vfs=unix-none", mode: .readWrite, busyTimeout: 1000)
        #expect(try connection.text("PRAGMA journal_mode = WAL") != "wal")
        #expect {
            try SQLiteSchema.requireWriteAheadLog(connection, path: path)
        } throws: { error in
            guard case HangarError.unsupportedFileSystem = error else { return false }
            return true
        }
    }

    @Test func aStoreOnALocalFileSystemRunsInWriteAheadLogMode() throws {
        let path = try temporaryDirectory() + "/wal.sqlite"
        _ = try SQLiteStore(path: path)
        let connection = try SQLiteConnection(path: path, mode: .readOnly, busyTimeout: 1000)
        #expect(try connection.text("PRAGMA journal_mode") == "wal")
        try SQLiteSchema.requireWriteAheadLog(connection, path: path)
    }
}
