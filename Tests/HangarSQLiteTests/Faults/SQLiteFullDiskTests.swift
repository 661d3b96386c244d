import Foundation
import Hangar
import HangarSQLite
import HangarTestSupport
import PropertyList
import Synchronization
import Testing

/// A store, its exports and its backups on a file system that fills up (a real tmpfs, filled with a real file):
/// saves fail with ``HangarError/diskFull``, nothing acknowledged is lost, the store stays open, and saving
/// works again once there is room.
@Suite(.serialized) struct SQLiteFullDiskTests {
    @Test func savesFailTypedLoseNothingAndResumeOnceSpaceIsFreed() throws {
        guard let fileSystem = SmallFileSystem.mount(megabytes: 3) else { return }
        defer { fileSystem.unmount() }
        let path = fileSystem.path + "/data/store.sqlite"
        var acknowledged: [String: [UInt8]] = [:]
        do {
            let store = try SQLiteStore(path: path)
            for index in 0..<3 {
                try store.write { try $0.save(secretNote("before\(index)"), key: "before\(index)") }
            }
            let filler = fileSystem.fill()
            // The first saves may still fit in pages the file system had already given; one fails soon.
            var failure: (any Error)?
            for index in 0..<40 {
                let key = "during\(index)"
                do {
                    try store.write { try $0.save(secretNote(key), key: key) }
                } catch {
                    failure = error
                    // The failed save left nothing: no document, no history, no change.
                    #expect(try bodies(in: store)[key] == nil)
                    #expect(try historyCount(in: store, key: key) == 0)
                    #expect(try store.read { try $0.changes(since: 0) }.allSatisfy { $0.key != key })
                    break
                }
            }
            let error = try #require(failure)
            expectFault(error, .diskFull)
            // Still open and readable: every save that returned is there.
            acknowledged = try bodies(in: store)
            for index in 0..<3 { #expect(acknowledged["before\(index)"] != nil) }
            // Room again: saving works, and the store is sound.
            try FileManager.default.removeItem(atPath: filler)
            try store.write { try $0.save(secretNote("after", size: 100), key: "after") }
            #expect(try store.checkIntegrity() == ["ok"])
        }
        // Reopened: byte for byte what was acknowledged.
        let reopened = try SQLiteStore(path: path)
        let reread = try bodies(in: reopened)
        for (key, body) in acknowledged { #expect(reread[key] == body, "\(key)") }
        #expect(reread["after"] != nil)
        #expect(try reopened.checkIntegrity() == ["ok"])
    }

    /// A commit too big for the space left: it fails whole, before or at COMMIT, and the write-ahead log
    /// gives nothing of it back after a checkpoint and a reopen.
    @Test func aFailedCommitRollsBackEntirelyThroughTheLog() throws {
        guard let fileSystem = SmallFileSystem.mount(megabytes: 3) else { return }
        defer { fileSystem.unmount() }
        let path = fileSystem.path + "/store.sqlite"
        do {
            let store = try SQLiteStore(path: path)
            try store.write { try $0.save(secretNote("kept", size: 1_000), key: "kept") }
            // A little room: some pages of the big transaction fit, not all of them.
            fileSystem.fill(leaving: 256 << 10)
            #expect {
                try store.write { transaction in
                    for index in 0..<30 { try transaction.save(secretNote("big\(index)"), key: "big\(index)") }
                }
            } throws: { error in
                expectFault(error, .diskFull)
                return true
            }
            #expect(try store.read { try $0.keys(in: "notes") } == ["kept"])
            #expect(try store.read { try $0.changes(since: 0) }.map(\.key) == ["kept"])
            // A checkpoint under a full disk fails or does nothing; it never brings the failed commit back.
            _ = try? store.checkpoint()
            #expect(try store.read { try $0.keys(in: "notes") } == ["kept"])
        }
        try FileManager.default.removeItem(atPath: fileSystem.path + "/filler")
        let reopened = try SQLiteStore(path: path)
        #expect(try reopened.read { try $0.keys(in: "notes") } == ["kept"])
        #expect(try reopened.checkIntegrity() == ["ok"])
    }

    /// Disk full when a write group commits: every write of the group fails with ``HangarError/diskFull``,
    /// nothing of any of them stays, and the store is sound and takes writes again once there is room.
    @Test func aGroupWhoseCommitFindsTheDiskFullFailsEveryWrite() async throws {
        guard let fileSystem = SmallFileSystem.mount(megabytes: 3) else { return }
        defer { fileSystem.unmount() }
        let path = fileSystem.path + "/store.sqlite"
        let store = try SQLiteStore(path: path)
        try await store.write { try $0.save(secretNote("kept", size: 1_000), key: "kept") }
        // Room for some of the group's pages, not all: they reach the disk only at COMMIT.
        let filler = fileSystem.fill(leaving: 128 << 10)
        let writes: [GroupedWrite] = (0..<4).map { index in
            { try $0.save(secretNote("g\(index)", size: 64 << 10), key: "g\(index)") }
        }
        let results = try await runInOneGroup(store, writes)
        for result in results {
            #expect(throws: (any Error).self) { try result.get() }
            if case .failure(let error) = result { expectFault(error, .diskFull) }
        }
        #expect(try await store.read { transaction in try transaction.keys(in: "notes") } == ["kept"])
        #expect(try await store.read { transaction in try transaction.changes(since: 0) }.map(\.key) == ["kept"])
        #expect(try store.checkIntegrity() == ["ok"])
        try FileManager.default.removeItem(atPath: filler)
        #expect(try await store.write { try $0.save(secretNote("after", size: 1_000), key: "after") } == 1)
        #expect(
            try await store.read { transaction in try transaction.changes(since: 0) }.map(\.key) == ["kept", "after"])
    }

    /// Export and backup onto a full disk: a typed error, the old destination untouched, no temporary file.
    @Test func exportAndBackupLeaveTheOldDestinationAndNoTemporaryFile() async throws {
        guard let fileSystem = SmallFileSystem.mount(megabytes: 2) else { return }
        defer { fileSystem.unmount() }
        let store = try SQLiteStore(path: try temporaryDirectory() + "/store.sqlite")
        try await store.write { transaction in
            for index in 0..<8 { try transaction.save(secretNote("n\(index)", size: 64 << 10), key: "n\(index)") }
        }
        let folder = fileSystem.path + "/out"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let oldBytes = Array("the old file".utf8)
        for name in ["one.plist", "backup.sqlite", "n0.plist"] {
            try AtomicFile.save(oldBytes, to: folder + "/" + name)
        }
        fileSystem.fill()

        await #expect { try await store.export(key: "n1", in: "notes", to: folder + "/one.plist") } throws: { error in
            expectFault(error, .diskFull)
            return true
        }
        #expect { try store.backup(to: folder + "/backup.sqlite") } throws: { error in
            expectFault(error, .diskFull)
            return true
        }
        await #expect { try await store.exportCollection("notes", to: folder) } throws: { error in
            expectFault(error, .diskFull)
            return true
        }
        for name in ["one.plist", "backup.sqlite", "n0.plist"] {
            #expect(try AtomicFile.contents(of: folder + "/" + name) == oldBytes, "\(name)")
        }
        #expect(names(in: folder) == ["backup.sqlite", "n0.plist", "one.plist"])
    }

    /// A mirror folder on a full disk: the save commits, and the failure is reported as ``HangarError/diskFull``
    /// (without the document) and retried once there is room.
    @Test func aMirrorOnAFullDiskReportsDiskFullAndCatchesUp() throws {
        guard let fileSystem = SmallFileSystem.mount(megabytes: 2) else { return }
        defer { fileSystem.unmount() }
        let reported = Mutex<[HangarError]>([])
        let store = try Backend.file.makeStore(mirroring: fileSystem.path + "/mirror") { error in
            reported.withLock { $0.append(error) }
        }
        let filler = fileSystem.fill()
        try store.write { try $0.save(secretNote("m"), key: "m") }
        let errors = reported.withLock { $0 }
        #expect(!errors.isEmpty)
        for error in errors { expectFault(error, .diskFull) }
        #expect(try bodies(in: store)["m"] != nil)
        try FileManager.default.removeItem(atPath: filler)
        #expect(try store.retryMirrors().isEmpty)
        #expect(names(in: fileSystem.path + "/mirror") == ["m.plist"])
    }
}
