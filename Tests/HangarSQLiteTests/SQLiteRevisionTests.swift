import Foundation
import HangarTestSupport
import PropertyList
import Testing

@testable import Hangar
@testable import HangarSQLite

/// A revision is never reused for a key, whatever the history policy.
@Suite struct SQLiteRevisionTests {
    static let policies: [HistoryPolicy] = [.keepNone, .keepLast(0), .keepLast(1), .keepAll]

    @Test(arguments: policies)
    func aRecreatedDocumentGoesOnCounting(policy: HistoryPolicy) throws {
        let path = try temporaryDirectory() + "/store.sqlite"
        let configuration = noteConfiguration(CollectionOptions(history: policy))
        do {
            let store = try SQLiteStore(path: path, store: configuration)
            #expect(try store.write { try $0.save(Note(title: "old", body: ""), key: "k") } == 1)
            #expect(try store.write { try $0.delete(key: "k", in: "notes") })
            #expect(try store.write { try $0.save(Note(title: "new", body: ""), key: "k") } == 2)
            // A client still holding revision 1 of the deleted document cannot save over the new one.
            #expect {
                try store.write { try $0.save(Note(title: "stale", body: ""), key: "k", expectedRevision: 1) }
            } throws: { error in
                guard case HangarError.conflict = error else { return false }
                return true
            }
            #expect(try store.write { try $0.delete(key: "k", in: "notes", expectedRevision: 2) })
        }
        // Reopened, the key still remembers its last revision.
        let reopened = try SQLiteStore(path: path, store: configuration)
        #expect(try reopened.write { try $0.save(Note(title: "again", body: ""), key: "k") } == 3)
        #expect(try reopened.read { try $0.load(Note.self, key: "k")?.value.title } == "again")
    }

    @Test func restoreTakesANewRevisionAboveEveryEarlierOne() throws {
        let store = try SQLiteStore.inMemory(store: noteConfiguration(CollectionOptions(history: .keepLast(1))))
        for body in ["1", "2", "3"] { try store.write { try $0.save(Note(title: "t", body: body), key: "k") } }
        // Only revision 2 is kept in history; restoring it gives revision 4, never a reused number.
        #expect(try store.read { try $0.history(in: "notes", key: "k") }.map(\.revision) == [2, 3])
        #expect(try store.write { try $0.restore(key: "k", in: "notes", revision: 2) } == 4)
        try store.write { try $0.delete(key: "k", in: "notes") }
        #expect(try store.write { try $0.save(Note(title: "t", body: "5"), key: "k") } == 5)
    }

    @Test func aVersionOneStoreUpgradesAndKeepsEveryKeysLastRevision() throws {
        let path = try temporaryDirectory() + "/v1.sqlite"
        do {
            // A store as schema version 1 left it: "gone" was deleted at revision 3 with its history kept.
            let raw = try SQLiteConnection(path: path, mode: .readWrite, busyTimeout: 1000)
            try raw.execute(SQLiteSchema.steps[0])
            try raw.execute("PRAGMA user_version = 1")
            let body = try PropertyList.dictionary(["majorVersion": 2, "minorVersion": 1, "title": "x", "body": ""])
                .encoded(as: .binary)
            let hex = body.map {
                String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
            }
            .joined()
            try raw.execute(
                """
                INSERT INTO documents VALUES ('notes', 'live', NULL, 2, 1, 7, 0, 0, x'\(hex)');
                INSERT INTO history VALUES ('notes', 'gone', 3, NULL, 2, 1, 0, x'\(hex)');
                INSERT INTO index_entries VALUES ('notes', 'title', 'x', 'live');
                """)
        }
        let store = try SQLiteStore(path: path)
        #expect(try store.write { try $0.save(Note(title: "x", body: ""), key: "live") } == 8)
        #expect(try store.write { try $0.save(Note(title: "x", body: ""), key: "gone") } == 4)
        let raw = try SQLiteConnection(path: path, mode: .readOnly, busyTimeout: 1000)
        #expect(try raw.integer("PRAGMA user_version") == SQLiteSchema.currentVersion)
        // Old index entries (plain SQLite values) are dropped; the store has built no index.
        #expect(try raw.integer("SELECT count(*) FROM index_entries") == 0)
    }
}
