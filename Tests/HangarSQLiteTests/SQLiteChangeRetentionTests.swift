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

/// Retention prunes later than it may, never earlier, and the last sequence survives a feed pruned empty
/// (the sequence is the largest change kept, or the last one pruned): no number is ever given twice.
@Suite struct SQLiteChangeRetentionTests {
    static func save(_ store: SQLiteStore, _ key: String) throws {
        try store.write { try $0.save(envelope: ["majorVersion": 1, "minorVersion": 0], key: key, in: "c") }
    }

    static func oldestRetained(_ store: SQLiteStore) -> Int? {
        do {
            _ = try store.read { try $0.changes(since: 0) }
            return 1
        } catch {
            return (error as? HangarError)?.oldestRetainedSequence
        }
    }

    @Test func byCountThePruneWaitsUntilOnePercentOver() throws {
        var configuration = StoreConfiguration()
        configuration.changeRetention = ChangeRetention(maximumCount: 200, maximumAge: nil)
        let store = try Backend.file.makeStore(configuration)
        try store.write { transaction in
            for index in 0..<202 {
                try transaction.save(envelope: ["majorVersion": 1, "minorVersion": 0], key: "k\(index)", in: "c")
            }
        }
        // 2 over (1 % of 200): all kept for now; one more and the oldest 3 go.
        #expect(try store.read { try $0.changes(since: 0) }.count == 202)
        try Self.save(store, "one-more")
        #expect(Self.oldestRetained(store) == 4)
        #expect(try store.read { try $0.changes(since: 3) }.count == 200)
    }

    @Test func byAgeNothingYoungerThanTheLimitIsPruned() throws {
        var configuration = StoreConfiguration()
        configuration.changeRetention = ChangeRetention(maximumCount: nil, maximumAge: 0.6)
        let store = try Backend.file.makeStore(configuration)
        // Another store on the file prunes too: its schedule is its own.
        let other = try SQLiteStore(path: store.path, store: configuration)
        try Self.save(store, "a")
        usleep(400_000)
        try Self.save(other, "b")
        usleep(400_000)
        // a is 0.8 s old, b 0.4 s: a commit of either store prunes a, and only a.
        try Self.save(store, "c")
        #expect(Self.oldestRetained(store) == 2)
        try Self.save(other, "d")
        #expect(try store.read { try $0.changes(since: 1) }.map(\.key) == ["b", "c", "d"])
    }

    @Test func aFeedPrunedEmptyGoesOnFromItsLastSequence() throws {
        var configuration = StoreConfiguration()
        configuration.changeRetention = ChangeRetention(maximumCount: 0, maximumAge: nil)
        let store = try Backend.file.makeStore(configuration)
        for key in ["a", "b", "c"] { try Self.save(store, key) }
        #expect(try store.read { try $0.lastChangeSequence() } == 3)
        #expect(try store.read { try $0.changes(since: 3) }.isEmpty)
        let reopened = try SQLiteStore(path: store.path)
        try Self.save(reopened, "d")
        #expect(try reopened.read { try $0.changes(since: 3) }.map(\.sequence) == [4])
    }

    @Test func aStoreFromSchemaThreeWithAFeedPrunedEmptyKeepsItsLastSequence() throws {
        let directory = try temporaryDirectory()
        let path = directory + "/store.sqlite"
        do {
            let store = try SQLiteStore(path: path)
            for key in ["a", "b", "c"] { try Self.save(store, key) }
        }
        // As step 3 left it: the counter row said 3, every change pruned but the first.
        let raw = try SQLiteConnection(path: path, mode: .readWrite, busyTimeout: 1_000)
        try raw.execute(
            """
            DROP TABLE mirror_cursors; CREATE INDEX changes_by_collection ON changes (collection, sequence);
            DELETE FROM changes;
            UPDATE change_counter SET last_sequence = 3, last_transaction = 3, pruned_through = 1;
            \(StoreSchemaDowngrade.dropKeyIDs) PRAGMA user_version = 3
            """)
        let store = try SQLiteStore(path: path)
        #expect(try store.read { try $0.lastChangeSequence() } == 3)
        try Self.save(store, "d")
        #expect(try store.read { try $0.changes(since: 3) }.map(\.sequence) == [4])
        // Its transaction id (its first sequence) is above every id step 3 gave.
        #expect(try store.read { try $0.changes(since: 3) }.map(\.transaction) == [4])
    }
}
