import Foundation
import HangarTestSupport
import PropertyList
import Testing

@testable import Hangar
@testable import HangarSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Mirrors follow the change feed from a cursor kept in the store: a mirror that could not write, or was
/// interrupted (a process that committed without mirroring, a process killed in the middle), catches up
/// from where it stopped; one whose changes were pruned writes its whole collection again.
@Suite struct SQLiteMirrorFeedTests {
    static func envelope(_ value: Int) -> PropertyList {
        ["majorVersion": 1, "minorVersion": 0, "value": .integer(.init(value))]
    }

    static func configuration(_ path: String, mirror: String?, retention: ChangeRetention = ChangeRetention())
        -> SQLiteStoreConfiguration
    {
        var configuration = StoreConfiguration()
        configuration.changeRetention = retention
        return sqliteConfiguration(path, configuration, mirroring: mirror)
    }

    /// The mirror folder's files (not the temporary ones), by name, with their bytes.
    static func files(in directory: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where !name.hasPrefix(".") {
            files[name] = try AtomicFile.contents(of: directory + "/" + name)
        }
        return files
    }

    /// What the mirror folder of `collection` should hold: one file per stored document, its body.
    static func expectedFiles(_ store: SQLiteStore, collection: String) throws -> [String: [UInt8]] {
        try store.read { transaction in
            var files: [String: [UInt8]] = [:]
            for key in try transaction.keys(in: collection) {
                files[StoreFileNames.fileName(for: key)] = try transaction.document(in: collection, key: key)?.body
            }
            return files
        }
    }

    @Test(arguments: Backend.allCases) func aMirrorWhoseFolderWasARegularFileCatchesUp(backend: Backend) throws {
        let directory = try temporaryDirectory()
        let mirror = directory + "/mirror"
        let store = try backend.makeStore(mirroring: mirror)
        try store.write { transaction in
            for value in 0..<4 { try transaction.save(envelope: Self.envelope(value), key: "k\(value)", in: "notes") }
        }
        #expect(try Self.files(in: mirror) == Self.expectedFiles(store, collection: "notes"))
        // The mirror folder's path becomes a regular file: nothing can be written there, even as root.
        try FileManager.default.removeItem(atPath: mirror)
        try AtomicFile.save(Array("in the way".utf8), to: mirror)
        // Every write still returns its revision: the saves are committed.
        #expect(try store.write { try $0.save(envelope: Self.envelope(10), key: "k0", in: "notes") } == 2)
        #expect(try store.write { try $0.delete(key: "k1", in: "notes") })
        #expect(try store.write { try $0.save(envelope: Self.envelope(11), key: "new", in: "notes") } == 1)
        try store.write { _ = try $0.restore(key: "k0", in: "notes", revision: 1) }
        // k1's delete is owed too: whether its file is gone cannot be known until the folder is back.
        #expect(try store.mirrorFailures().map(\.key) == ["k0", "k1", "new"])
        #expect(try store.mirrorFailures().allSatisfy { $0.path.hasPrefix(mirror + "/") && !$0.reason.isEmpty })
        #expect(try store.retryMirrors().count == 3)
        // The path is free again (an empty folder): the next pass writes what is owed, from the documents as
        // they are now. A mirror writes what changed after its cursor; it does not audit the folder, so the
        // files lost with the old folder (k2, k3, unchanged since) are not written again.
        try FileManager.default.removeItem(atPath: mirror)
        #expect(try store.retryMirrors() == [])
        let expected = try Self.expectedFiles(store, collection: "notes")
        #expect(try Self.files(in: mirror) == expected.filter { ["k0.plist", "new.plist"].contains($0.key) })
        #expect(try PropertyList(binary: #require(Self.files(in: mirror)["k0.plist"]))["value"] == 0)
    }

    /// A mirror declared for `"caf\u{E9}"` mirrors that collection only: `"cafe\u{301}"`, canonically equivalent,
    /// is another collection, without a mirror.
    @Test func aMirrorFollowsItsCollectionByTheNamesBytes() throws {
        let directory = try temporaryDirectory()
        let mirror = directory + "/mirror"
        var configuration = SQLiteStoreConfiguration(path: directory + "/store.sqlite")
        configuration.mirrors["caf\u{E9}"] = mirror
        let store = try SQLiteStore(configuration: configuration)
        try store.write { transaction in
            try transaction.save(envelope: Self.envelope(1), key: "composed", in: "caf\u{E9}")
            try transaction.save(envelope: Self.envelope(2), key: "decomposed", in: "cafe\u{301}")
        }
        #expect(try Self.files(in: mirror).keys.sorted() == [StoreFileNames.fileName(for: "composed")])
    }

    @Test func aMirrorBlockedForAWhileHasEveryFileOnceItCanWrite() throws {
        let directory = try temporaryDirectory()
        let mirror = directory + "/mirror"
        let store = try Backend.file.makeStore(mirroring: mirror)
        try store.write { try $0.save(envelope: Self.envelope(0), key: "before", in: "notes") }
        try store.write { try $0.save(envelope: Self.envelope(0), key: "doomed", in: "notes") }
        // Blocked: the mirror's path is a regular file. The folder's files stay where they were.
        let aside = directory + "/aside"
        try FileManager.default.moveItem(atPath: mirror, toPath: aside)
        try AtomicFile.save(Array("in the way".utf8), to: mirror)
        var random = SeededGenerator(seed: 12)
        for index in 0..<30 {
            let key = "k\(Int.random(in: 0..<6, using: &random))"
            try store.write { transaction in
                if Int.random(in: 0..<4, using: &random) == 0 {
                    try transaction.delete(key: key, in: "notes")
                } else {
                    try transaction.save(envelope: Self.envelope(index), key: key, in: "notes")
                }
            }
        }
        try store.write { try $0.delete(key: "doomed", in: "notes") }
        #expect(try !store.mirrorFailures().isEmpty)
        // Unblocked: the folder is back as it was before; one pass brings it level with the store.
        try FileManager.default.removeItem(atPath: mirror)
        try FileManager.default.moveItem(atPath: aside, toPath: mirror)
        #expect(try store.retryMirrors() == [])
        #expect(try Self.files(in: mirror) == Self.expectedFiles(store, collection: "notes"))
    }

    @Test func commitsNoMirrorPassFollowedAreCaughtUpOnOpen() throws {
        let directory = try temporaryDirectory()
        let path = directory + "/store.sqlite"
        let mirror = directory + "/mirror"
        do {
            let store = try SQLiteStore(configuration: Self.configuration(path, mirror: mirror))
            try store.write { try $0.save(envelope: Self.envelope(1), key: "a", in: "notes") }
            try store.write { try $0.save(envelope: Self.envelope(1), key: "b", in: "notes") }
        }
        // Another process commits without mirroring (as one killed between its commit and its mirror pass).
        do {
            let other = try SQLiteStore(configuration: Self.configuration(path, mirror: nil))
            try other.write { transaction in
                try transaction.save(envelope: Self.envelope(2), key: "a", in: "notes")
                try transaction.delete(key: "b", in: "notes")
                try transaction.save(envelope: Self.envelope(2), key: "c", in: "notes")
            }
            // Seen from a store that does not mirror: the files not mirrored yet, with why.
            let lagging = try other.mirrorFailures()
            #expect(lagging.map(\.key) == ["a", "b", "c"])
            #expect(lagging.allSatisfy { $0.reason.hasPrefix("not mirrored yet: the mirror is at sequence 2") })
            #expect(try Self.files(in: mirror).keys.sorted() == ["a.plist", "b.plist"])
        }
        // The mirroring store opens again: it catches up before the first write.
        let store = try SQLiteStore(configuration: Self.configuration(path, mirror: mirror))
        #expect(try store.mirrorFailures() == [])
        #expect(try Self.files(in: mirror) == Self.expectedFiles(store, collection: "notes"))
        #expect(try Self.files(in: mirror).keys.sorted() == ["a.plist", "c.plist"])
    }

    @Test func aMirrorWhoseChangesWerePrunedResyncsTheWholeCollection() throws {
        let directory = try temporaryDirectory()
        let path = directory + "/store.sqlite"
        let mirror = directory + "/mirror"
        let retention = ChangeRetention(maximumCount: 3, maximumAge: nil)
        do {
            let store = try SQLiteStore(configuration: Self.configuration(path, mirror: mirror, retention: retention))
            for key in ["a", "b", "c"] {
                try store.write { try $0.save(envelope: Self.envelope(1), key: key, in: "notes") }
            }
        }
        do {
            let other = try SQLiteStore(configuration: Self.configuration(path, mirror: nil, retention: retention))
            try other.write { try $0.delete(key: "b", in: "notes") }
            for value in 0..<6 {
                try other.write { try $0.save(envelope: Self.envelope(value), key: "d\(value % 2)", in: "notes") }
            }
            // The mirror's cursor (3) is behind the oldest change kept: the whole collection is owed.
            let owed = try other.mirrorFailures()
            #expect(owed.map(\.key) == [""])
            #expect(owed.first?.path == mirror)
            #expect(owed.first?.reason.contains("pruned") == true)
        }
        let store = try SQLiteStore(configuration: Self.configuration(path, mirror: mirror, retention: retention))
        #expect(try store.mirrorFailures() == [])
        // b is gone (its delete was pruned from the feed, the resync removed its file); a, c, d0, d1 are current.
        #expect(try Self.files(in: mirror) == Self.expectedFiles(store, collection: "notes"))
        #expect(try Self.files(in: mirror).keys.sorted() == ["a.plist", "c.plist", "d0.plist", "d1.plist"])
    }

    @Test func aStoreFromSchemaThreeMirrorsItsWholeCollectionOnce() throws {
        let directory = try temporaryDirectory()
        let path = directory + "/store.sqlite"
        let mirror = directory + "/mirror"
        do {
            let store = try SQLiteStore(path: path)
            try store.write { try $0.save(envelope: Self.envelope(1), key: "a", in: "notes") }
        }
        let raw = try SQLiteConnection(path: path, mode: .readWrite, busyTimeout: 1_000)
        try raw.execute(
            """
            DROP TABLE mirror_cursors; CREATE INDEX changes_by_collection ON changes (collection, sequence);
            UPDATE change_counter SET last_sequence = 1, last_transaction = 1;
            \(StoreSchemaDowngrade.dropKeyIDs) PRAGMA user_version = 3
            """)
        let store = try SQLiteStore(configuration: Self.configuration(path, mirror: mirror))
        #expect(try raw.integer("PRAGMA user_version") == SQLiteSchema.currentVersion)
        #expect(try Self.files(in: mirror).keys.sorted() == ["a.plist"])
        try store.write { try $0.save(envelope: Self.envelope(2), key: "b", in: "notes") }
        #expect(try store.read { try $0.changes(since: 0) }.map(\.sequence) == [1, 2])
        #expect(try store.read { try $0.changes(since: 0) }.map(\.transaction) == [1, 2])
        #expect(try Self.files(in: mirror) == Self.expectedFiles(store, collection: "notes"))
    }

    /// Async writes catch their mirror up after giving the writer's turn back, awaiting their own turn for the
    /// pass: many at once neither deadlock on the writer's queue nor leave the folder behind.
    // (Two seconds alone; the limit leaves room for a fully loaded machine, where each of the 40 commits and
    // mirror passes waits for fsync, and still catches a deadlock.)
    @Test(.timeLimit(.minutes(3))) func concurrentAsyncWritesKeepTheMirrorLevel() async throws {
        let directory = try temporaryDirectory()
        let mirror = directory + "/mirror"
        let store = try Backend.file.makeStore(mirroring: mirror)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask {
                    try await store.write { transaction in
                        if index % 5 == 4 {
                            try transaction.delete(key: "k\(index % 7)", in: "notes")
                        } else {
                            try transaction.save(envelope: Self.envelope(index), key: "k\(index % 7)", in: "notes")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.mirrorFailures() == [])
        #expect(try Self.files(in: mirror) == Self.expectedFiles(store, collection: "notes"))
    }

    /// A writer mirroring its collection is killed at random moments (in the middle of a save, of a mirror
    /// pass, between them); each time the store reopens with the mirror, the folder matches the store exactly.
    @Test func aMirrorKilledMidPassCatchesUpOnOpen() throws {
        let directory = try temporaryDirectory()
        let path = directory + "/store.sqlite"
        let mirror = directory + "/mirror"
        var random = SeededGenerator(seed: UInt64.random(in: 1...UInt64.max))
        let configuration = sqliteConfiguration(
            path, stressConfiguration(), mirroring: mirror, collection: "feed",
            mirrorFailures: { Issue.record("mirror failure: \($0)") })
        var acknowledged = 0
        for cycle in 0..<6 {
            let child = try ChildProcess(
                ["mirror-loop", path, mirror, "\(random.next())"], stderrPath: directory + "/stderr.txt")
            guard child.waitForFirstLine("ready", timeout: 60) else {
                child.killAndWait()
                Issue.record("cycle \(cycle): the child did not start: \(child.standardError)")
                return
            }
            usleep(UInt32(30_000 + random.next() % 200_000))
            #expect(ChildProcess.wasKilled(child.killAndWait()), "\(child.standardError)")
            acknowledged += child.completeLines().filter { $0.hasPrefix("ack ") }.count
            let store = try SQLiteStore(configuration: configuration)
            #expect(try store.mirrorFailures() == [])
            #expect(try Self.files(in: mirror) == Self.expectedFiles(store, collection: "feed"), "after kill \(cycle)")
        }
        #expect(acknowledged > 6)
    }
}
