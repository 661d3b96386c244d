import Foundation
import HangarTestSupport
import PropertyList
import Testing

@testable import Hangar
@testable import HangarSQLite

@Suite struct SQLiteStoreTests {
    @Test(arguments: Backend.allCases)
    func saveAndLoadBumpRevisions(backend: Backend) throws {
        let store = try backend.makeStore()
        let first = try store.write { try $0.save(Note(title: "A", body: "one"), key: "a") }
        let second = try store.write { try $0.save(Note(title: "A", body: "two"), key: "a") }
        #expect((first, second) == (1, 2))
        let loaded = try #require(try store.read { try $0.load(Note.self, key: "a") })
        #expect(loaded.value == Note(title: "A", body: "two"))
        #expect(loaded.revision == 2)
        #expect(loaded.storedVersion == DocumentVersion(major: 2, minor: 1))
        #expect(!loaded.wasMigrated)
        #expect(try store.read { try $0.load(Note.self, key: "missing") } == nil)
        let stored = try #require(try store.read { try $0.document(in: "notes", key: "a") })
        #expect(
            try stored.envelope() == ["title": "A", "body": "two", "priority": 0, "majorVersion": 2, "minorVersion": 1])
    }

    @Test(arguments: Backend.allCases)
    func staleRevisionIsAConflictAndWritesNothing(backend: Backend) throws {
        let store = try backend.makeStore()
        try store.write { try $0.save(Note(title: "A", body: "one"), key: "a") }
        try store.write { try $0.save(Note(title: "A", body: "two"), key: "a", expectedRevision: 1) }
        #expect {
            try store.write { try $0.save(Note(title: "A", body: "stale"), key: "a", expectedRevision: 1) }
        } throws: { error in
            guard case HangarError.conflict = error else { return false }
            return "\(error)" == "notes/a: Expected revision 1, but the stored revision is 2; nothing was written"
        }
        #expect(try store.read { try $0.load(Note.self, key: "a")?.value.body } == "two")
        // 0 means "must not exist yet".
        #expect(throws: HangarError.self) {
            try store.write { try $0.save(Note(title: "B", body: ""), key: "a", expectedRevision: 0) }
        }
        #expect(try store.write { try $0.save(Note(title: "B", body: ""), key: "b", expectedRevision: 0) } == 1)
    }

    @Test(arguments: Backend.allCases)
    func aThrowingTransactionWritesNothing(backend: Backend) throws {
        struct Abort: Error {}
        let store = try backend.makeStore()
        #expect(throws: Abort.self) {
            try store.write { transaction in
                try transaction.save(Note(title: "A", body: ""), key: "a")
                try transaction.save(Note(title: "B", body: ""), key: "b")
                throw Abort()
            }
        }
        #expect(try store.read { try $0.count(in: "notes") } == 0)
        // A conflict in the middle of a multi-document write undoes the earlier saves too.
        try store.write { try $0.save(Note(title: "C", body: ""), key: "c") }
        #expect(throws: HangarError.self) {
            try store.write { transaction in
                try transaction.save(Note(title: "A", body: ""), key: "a")
                try transaction.save(Note(title: "C2", body: ""), key: "c", expectedRevision: 7)
            }
        }
        #expect(try store.read { try $0.keys(in: "notes") } == ["c"])
    }

    @Test(arguments: Backend.allCases)
    func historyKeepsEarlierRevisionsAndRestores(backend: Backend) throws {
        let store = try backend.makeStore()
        for body in ["one", "two", "three"] { try store.write { try $0.save(Note(title: "A", body: body), key: "a") } }
        let history = try store.read { try $0.history(in: "notes", key: "a") }
        #expect(history.map(\.revision) == [1, 2, 3])
        #expect(history.map(\.isCurrent) == [false, false, true])
        #expect(try store.read { try $0.load(Note.self, key: "a", revision: 1)?.value.body } == "one")
        #expect(try store.write { try $0.restore(key: "a", in: "notes", revision: 1) } == 4)
        #expect(try store.read { try $0.load(Note.self, key: "a")?.value.body } == "one")
        // Deleting keeps the history; saving again goes on counting.
        #expect(try store.write { try $0.delete(key: "a", in: "notes") })
        #expect(try store.read { try $0.exists(in: "notes", key: "a") } == false)
        #expect(try store.write { try $0.save(Note(title: "A", body: "five"), key: "a") } == 5)
        #expect(try store.read { try $0.history(in: "notes", key: "a") }.map(\.revision) == [1, 2, 3, 4, 5])
    }

    @Test(arguments: [(HistoryPolicy.keepLast(2), [3, 4, 5]), (.keepNone, [5])])
    func historyRetention(policy: HistoryPolicy, expected: [Int]) throws {
        let store = try SQLiteStore.inMemory(store: noteConfiguration(CollectionOptions(history: policy)))
        for index in 1...5 { try store.write { try $0.save(Note(title: "A", body: "\(index)"), key: "a") } }
        #expect(try store.read { try $0.history(in: "notes", key: "a") }.map(\.revision) == expected)
    }

    @Test(arguments: Backend.allCases)
    func newerMajorIsRefusedAndLeftUntouched(backend: Backend) throws {
        let store = try backend.makeStore()
        let future: PropertyList = ["majorVersion": 3, "minorVersion": 0, "title": "From the future", "shape": [1, 2]]
        try store.write { try $0.save(envelope: future, key: "f", in: "notes") }
        let before = try #require(try store.read { try $0.document(in: "notes", key: "f") })
        #expect {
            try store.read { try $0.load(Note.self, key: "f") }
        } throws: { error in
            guard case HangarError.newerMajor = error else { return false }
            return "\(error)"
                == "notes/f: Not read: major version 3 is newer than this code reads (2); the document is left as it is"
        }
        #expect {
            try store.write { try $0.save(Note(title: "Old app", body: ""), key: "f") }
        } throws: { error in
            guard case HangarError.newerMajor = error else { return false }
            return true
        }
        let after = try #require(try store.read { try $0.document(in: "notes", key: "f") })
        #expect(after == before)
        // Forcing is explicit.
        #expect(
            try store.write { try $0.save(Note(title: "Forced", body: ""), key: "f", overwritingNewerMajor: true) } == 2
        )
    }

    @Test(arguments: Backend.allCases)
    func newerMinorKeepsUnknownKeysOnSave(backend: Backend) throws {
        let store = try backend.makeStore()
        let newer: PropertyList = [
            "majorVersion": 2, "minorVersion": 5, "title": "T", "body": "B", "priority": 1,
            "color": "red", "attachments": [["name": "a.png"]],
        ]
        try store.write { try $0.save(envelope: newer, key: "n", in: "notes") }
        let loaded = try #require(try store.read { try $0.load(Note.self, key: "n") })
        #expect(loaded.value == Note(title: "T", body: "B", priority: 1))
        var edited = loaded.value
        edited.body = "edited by an older app"
        edited.priority = 0
        try store.write { try $0.save(edited, key: "n", expectedRevision: loaded.revision) }
        let stored = try #require(try store.read { try $0.document(in: "notes", key: "n") })
        #expect(
            try stored.envelope() == [
                "majorVersion": 2, "minorVersion": 5, "title": "T", "body": "edited by an older app", "priority": 0,
                "color": "red", "attachments": [["name": "a.png"]],
            ])
    }

    @Test(arguments: Backend.allCases)
    func oldDocumentsMigrateInMemoryAndBulkUpgrade(backend: Backend) async throws {
        let events = EventLog()
        var configuration = StoreConfiguration()
        configuration.migrationObserver = { events.append($0.description) }
        let store = try backend.makeStore(configuration)
        try await store.write { transaction in
            for index in 0..<5 {
                try transaction.save(
                    envelope: ["majorVersion": 1, "minorVersion": 0, "title": .string("t\(index)"), "text": "old"],
                    key: "k\(index)", in: "notes")
            }
            try transaction.save(
                envelope: ["majorVersion": 1, "minorVersion": 0, "text": "no title"], key: "broken", in: "notes")
            try transaction.save(envelope: ["majorVersion": 9, "minorVersion": 0], key: "future", in: "notes")
            try transaction.save(Note(title: "new", body: "current"), key: "current")
        }
        let loaded = try await #require(try store.read { try $0.load(Note.self, key: "k0") })
        #expect(loaded.value == Note(title: "t0", body: "old"))
        #expect(loaded.wasMigrated && loaded.storedVersion == DocumentVersion(major: 1, minor: 0))
        #expect(events.lines == ["migrated notes/k0 from 1.0 to 2.0: rename text to body"])
        await #expect(
            try store.read { try $0.document(in: "notes", key: "k0")?.version } == DocumentVersion(major: 1, minor: 0))

        var seen: [Int] = []
        let report = try await store.upgrade(Note.self, batchSize: 2) { seen.append($0.upgraded) }
        #expect(report.upgraded == ["k0", "k1", "k2", "k3", "k4"])
        #expect(report.newer == ["future"])
        #expect(report.quarantined.map(\.key) == ["broken"])
        // Six stale documents in key order ("broken" first), two per batch.
        #expect(seen == [1, 3, 5])
        await #expect(
            try store.read { try $0.document(in: "notes", key: "k3")?.version } == DocumentVersion(major: 2, minor: 1))
        await #expect(
            try store.read { try $0.document(in: "notes", key: "broken")?.version }
                == DocumentVersion(major: 1, minor: 0))
        let batch = try await store.read { try $0.documents(Note.self) }
        #expect(batch.loaded.map(\.key) == ["current", "k0", "k1", "k2", "k3", "k4"])
        #expect(batch.quarantined.map(\.key) == ["broken", "future"])
    }

    /// The class-tag index holds only tagged documents (schema step 6): an untagged save writes no page of it,
    /// and a query by tag still finds the tagged ones through it.
    @Test func theClassTagIndexHoldsOnlyTaggedDocumentsAndServesQueriesByTag() throws {
        let path = try temporaryDirectory() + "/store.sqlite"
        let store = try SQLiteStore(path: path, store: noteConfiguration())
        try store.write { transaction in
            try transaction.save(Note(title: "plain", body: ""), key: "p")
            try transaction.save(
                envelope: ["majorVersion": 2, "minorVersion": 1, "class": "Memo", "title": "M", "body": ""],
                key: "m", in: "notes")
        }
        #expect(try store.read { try $0.keys(in: "notes", classTag: "Memo") } == ["m"])
        let raw = try SQLiteConnection(path: path, mode: .readOnly, busyTimeout: 1_000)
        let definition = try raw.text("SELECT sql FROM sqlite_master WHERE name = 'documents_by_class_tag'")
        #expect(definition?.hasSuffix("WHERE class_tag IS NOT NULL") == true, "\(definition ?? "none")")
        let plan = try raw.cachedStatement("EXPLAIN QUERY PLAN " + SQLiteSQL.keysByClassTag)
        defer { plan.reset() }
        var details: [String] = []
        while try plan.step() { details.append(plan.text(at: 3)) }
        #expect(details.contains { $0.contains("documents_by_class_tag") }, "\(details)")
    }

    @Test(arguments: Backend.allCases)
    func secondaryIndexesAndClassTags(backend: Backend) throws {
        let options = CollectionOptions(indexes: [.path("tags"), .path("priority")])
        let store = try backend.makeStore(noteConfiguration(options))
        try store.write { transaction in
            try transaction.save(Note(title: "A", body: "", tags: ["red", "blue"], priority: 1), key: "a")
            try transaction.save(Note(title: "B", body: "", tags: ["blue"], priority: 5), key: "b")
            try transaction.save(Note(title: "C", body: "", tags: [], priority: 9), key: "c")
            try transaction.save(
                envelope: ["majorVersion": 2, "minorVersion": 1, "class": "Memo", "title": "M", "body": ""],
                key: "m", in: "notes")
        }
        #expect(try store.read { try $0.keys(in: "notes", index: "tags", equalTo: "blue") } == ["a", "b"])
        #expect(try store.read { try $0.keys(in: "notes", index: "priority", from: 2, to: 9) } == ["b", "c"])
        #expect(try store.read { try $0.keys(in: "notes", index: "priority", from: nil, to: 1) } == ["a"])
        #expect(try store.read { try $0.keys(in: "notes", classTag: "Memo") } == ["m"])
        // The index follows saves and deletes in the same transaction.
        try store.write { try $0.save(Note(title: "B", body: "", tags: ["green"], priority: 5), key: "b") }
        try store.write { try $0.delete(key: "a", in: "notes") }
        #expect(try store.read { try $0.keys(in: "notes", index: "tags", equalTo: "blue") } == [])
        #expect(try store.read { try $0.keys(in: "notes", index: "tags", equalTo: "green") } == ["b"])
    }

    @Test(arguments: Backend.allCases)
    func listingKeysAndCollections(backend: Backend) throws {
        let store = try backend.makeStore()
        try store.write { transaction in
            for key in ["b", "a", "c"] { try transaction.save(Note(title: key, body: ""), key: key) }
            try transaction.save(envelope: ["majorVersion": 1, "minorVersion": 0], key: "x", in: "other")
        }
        #expect(try store.read { try $0.collections() } == ["notes", "other"])
        #expect(try store.read { try $0.keys(in: "notes") } == ["a", "b", "c"])
        #expect(try store.read { try $0.keys(in: "notes", order: .descending, limit: 2) } == ["c", "b"])
        #expect(try store.read { try $0.keys(in: "notes", limit: 1, offset: 1) } == ["b"])
    }

    @Test func invalidEnvelopesAndNamesAreRefused() throws {
        let store = try SQLiteStore.inMemory()
        #expect {
            try store.write { try $0.save(envelope: ["title": "no version"], key: "x", in: "notes") }
        } throws: { error in
            guard case HangarError.invalidDocument = error else { return false }
            return "\(error)" == "notes/x: Not a document envelope: The document has no majorVersion"
        }
        #expect(throws: HangarError.self) { try store.write { try $0.save(envelope: [1, 2], key: "x", in: "notes") } }
        #expect(throws: HangarError.self) { try store.write { try $0.save(Note(title: "", body: ""), key: "") } }
        #expect(throws: HangarError.self) {
            try store.write { try $0.save(envelope: ["majorVersion": 1, "when": .date(.nan)], key: "x", in: "notes") }
        }
        #expect(try store.read { try $0.count(in: "notes") } == 0)
    }

    @Test(arguments: Backend.allCases)
    func asyncAPI(backend: Backend) async throws {
        let store = try backend.makeStore()
        let revision = try await store.write { try $0.save(Note(title: "A", body: "async"), key: "a") }
        #expect(revision == 1)
        let body = try await store.read { try $0.load(Note.self, key: "a")?.value.body }
        #expect(body == "async")
    }
}

/// Collects lines from any thread.
final class EventLog: Sendable {
    private let storage = LockedLines()
    func append(_ line: String) { storage.append(line) }
    var lines: [String] { storage.lines }
}

private final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String] = []
    func append(_ line: String) { lock.withLock { values.append(line) } }
    var lines: [String] { lock.withLock { values } }
}

@Suite struct SQLiteStoreMisuseTests {
    @Test func readInsideWriteOfAnInMemoryStoreStopsInsteadOfDeadlocking() async {
        await #expect(processExitsWith: .failure) {
            let store = try SQLiteStore.inMemory()
            try store.write { _ in try store.read { _ in } }
        }
    }

    @Test func writeInsideWriteStops() async {
        await #expect(processExitsWith: .failure) {
            let store = try SQLiteStore.inMemory()
            try store.write { _ in try store.write { _ in } }
        }
    }

    @Test func readInsideWriteOfAFileStoreSeesTheStateBeforeTheWrite() throws {
        let store = try Backend.file.makeStore()
        try store.write { transaction in
            try transaction.save(Note(title: "pending", body: ""), key: "p")
            #expect(try store.read { try $0.exists(in: "notes", key: "p") } == false)
            #expect(try transaction.exists(in: "notes", key: "p"))
        }
    }
}
