import Foundation
import HangarSQLite
import HangarTestSupport
import PropertyList
import Testing

@testable import Hangar

@Suite struct SQLiteUpdateTests {
    @Test func everyIncrementOfEightContendingWritersLandsOnce() async throws {
        let path = try temporaryDirectory() + "/store.sqlite"
        // Two stores on one file, four writers each: contention inside a store and between stores.
        let stores = [try SQLiteStore(path: path), try SQLiteStore(path: path)]
        try await stores[0].write { try $0.save(Note(title: "counter", body: ""), key: "hot") }
        let writers = 8
        let increments = 25
        let calls = EventLog()
        let failures = EventLog()
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for _ in 0..<increments {
                        do {
                            try await stores[writer % 2].update(Note.self, key: "hot") { note in
                                calls.append("")
                                note.priority += 1
                            }
                        } catch {
                            failures.append("\(error)")
                        }
                    }
                }
            }
        }
        #expect(failures.lines == [])
        let loaded = try await #require(try stores[1].read { try $0.load(Note.self, key: "hot") })
        #expect(loaded.value.priority == writers * increments)
        #expect(loaded.revision == writers * increments + 1)
        #expect(calls.lines.count >= writers * increments)
    }

    @Test func aConflictOnEveryAttemptIsContentionAndSavesNothing() async throws {
        let store = try Backend.file.makeStore()
        try await store.write { try $0.save(Note(title: "t", body: ""), key: "k") }
        var calls = 0
        await #expect {
            try await store.update(Note.self, key: "k", maximumAttempts: 3) { note in
                calls += 1
                note.body = "from update"
                // Someone else saves between this load and its save, every time.
                try store.write { try $0.save(Note(title: "t", body: "other \(calls)"), key: "k") }
            }
        } throws: { error in
            guard case HangarError.contention = error else { return false }
            return (error as? HangarError)?.key == "k"
        }
        #expect(calls == 3)
        #expect(try await store.read { try $0.load(Note.self, key: "k")?.value.body } == "other 3")
        await #expect {
            try await store.update(Note.self, key: "missing") { _ in }
        } throws: { error in
            guard case HangarError.notFound = error else { return false }
            return true
        }
        #expect(try await store.update(Note.self, key: "k") { $0.body = "updated" } == 5)
        #expect(try await store.read { try $0.load(Note.self, key: "k")?.value.body } == "updated")
    }
}
