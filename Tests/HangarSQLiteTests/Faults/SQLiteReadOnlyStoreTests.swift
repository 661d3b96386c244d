import Foundation
import Hangar
import HangarSQLite
import HangarTestSupport
import PropertyList
import Testing

/// Read-only stores: a store on a file system remounted read-only (what stops root too), and the read-only
/// access mode, which serves every read and refuses every write with ``HangarError/readOnly``.
@Suite(.serialized) struct SQLiteReadOnlyStoreTests {
    private static var readOnly: StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.access = .readOnly
        return configuration
    }

    /// Saves two revisions of `a` and one of `b`, and returns the store's path.
    private static func makeStore(in folder: String) throws -> String {
        let path = folder + "/store.sqlite"
        let store = try SQLiteStore(path: path)
        try store.write { try $0.save(secretNote("a", size: 100), key: "a") }
        try store.write { try $0.save(secretNote("a2", size: 100), key: "a") }
        try store.write { try $0.save(secretNote("b", size: 100), key: "b") }
        return path
    }

    @Test func aReadOnlyFileSystemRefusesWritingOpensAndServesReadOnlyOnes() throws {
        guard let fileSystem = SmallFileSystem.mount(megabytes: 2) else { return }
        defer { fileSystem.unmount() }
        let path = try Self.makeStore(in: fileSystem.path)
        try fileSystem.remount(readOnly: true)
        #expect { try SQLiteStore(path: path) } throws: { error in
            expectFault(error, .readOnly)
            return true
        }
        let store = try SQLiteStore(path: path, store: Self.readOnly)
        #expect(try bodies(in: store).keys.sorted() == ["a", "b"])
        #expect(try historyCount(in: store, key: "a") == 2)
        #expect(try note(in: store, key: "a")?.title == "a2")
        #expect(try store.read { try $0.changes(since: 0) }.count == 3)
        #expect(try store.checkIntegrity() == ["ok"])
        let backup = try temporaryDirectory() + "/backup.sqlite"
        try store.backup(to: backup)
        #expect(try SQLiteStore(path: backup).read { try $0.keys(in: "notes") } == ["a", "b"])
        #expect { try store.write { try $0.save(secretNote("c"), key: "c") } } throws: { error in
            expectFault(error, .readOnly)
            return true
        }
    }

    /// The read-only mode on a writable file: nothing is created, changed or upgraded, and writes are refused.
    @Test func theReadOnlyModeCreatesNothingAndRefusesWrites() async throws {
        let folder = try temporaryDirectory()
        #expect { try SQLiteStore(path: folder + "/missing/store.sqlite", store: Self.readOnly) } throws: {
            ($0 as? HangarError)?.code == .notFound
        }
        #expect(names(in: folder).isEmpty)
        let path = try Self.makeStore(in: folder)
        let before = try AtomicFile.contents(of: path)
        let store = try SQLiteStore(path: path, store: Self.readOnly)
        #expect(try await store.read { try $0.keys(in: "notes") } == ["a", "b"])
        #expect { try store.write { try $0.delete(key: "a", in: "notes") } } throws: { error in
            expectFault(error, .readOnly)
            return true
        }
        try await store.export(key: "a", in: "notes", to: folder + "/a.plist")
        await #expect { try await store.importFile(folder + "/a.plist", into: "other") } throws: {
            ($0 as? HangarError)?.code == .readOnly
        }
        #expect(try AtomicFile.contents(of: path) == before)
        // A store written by another connection meanwhile is read as it is now.
        try await SQLiteStore(path: path).write { try $0.save(secretNote("c", size: 10), key: "c") }
        #expect(try await store.read { try $0.keys(in: "notes") } == ["a", "b", "c"])
    }

    @Test func asyncWritesToAReadOnlyStoreAreRefused() async throws {
        let path = try Self.makeStore(in: try temporaryDirectory())
        let store = try SQLiteStore(path: path, store: Self.readOnly)
        await #expect {
            try await store.write { @Sendable transaction in try transaction.delete(key: "a", in: "notes") }
        } throws: { ($0 as? HangarError)?.code == .readOnly }
        let keys = try await store.read { @Sendable transaction in try transaction.keys(in: "notes") }
        #expect(keys == ["a", "b"])
    }
}
