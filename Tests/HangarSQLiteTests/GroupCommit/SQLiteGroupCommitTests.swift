import Dispatch
import Foundation
import Hangar
import HangarTestSupport
import MetricsTestKit
import PropertyList
import Synchronization
import Testing

@testable import HangarSQLite

/// Group commit on a real SQLite file: writes queued behind another share its transaction and one COMMIT, none
/// returns before that commit, each keeps its own change-feed transaction, and a write that throws inside a
/// group leaves no trace while the others commit.
@Suite struct SQLiteGroupCommitTests {
    static func store(
        _ options: CollectionOptions = CollectionOptions(), metrics: TestMetrics? = nil,
        groupCommit: SQLiteStoreConfiguration.GroupCommit = .init()
    ) throws -> SQLiteStore {
        var store = noteConfiguration(options)
        if let metrics { store.observability = StoreObservability(metricsFactory: metrics) }
        var configuration = SQLiteStoreConfiguration(path: try temporaryDirectory() + "/store.sqlite", store: store)
        configuration.groupCommit = groupCommit
        return try SQLiteStore(configuration: configuration)
    }

    static func commits(_ metrics: TestMetrics) -> Int64 {
        metrics.counters(label: "hangar_commits_total").reduce(0) { $0 + $1.totalValue }
    }

    @Test func queuedWritesShareOneCommitAndNoneReturnsBeforeIt() async throws {
        let metrics = TestMetrics()
        let store = try Self.store(metrics: metrics)
        let before = Self.commits(metrics)
        let returned = Atomic<Int>(0)
        let writes: [GroupedWrite] = (0..<5).map { index in
            { transaction in
                // Each write sees the group's earlier writes in its own transaction.
                for earlier in 0..<index {
                    #expect(try transaction.document(in: "notes", key: "n\(earlier)")?.revision == 1)
                }
                try transaction.save(Note(title: "n\(index)", body: "b"), key: "n\(index)")
            }
        }
        let results = try await runInOneGroup(store, writes) {
            // Every write but the last has run: none has returned, and a reader sees none of them.
            #expect(returned.load(ordering: .acquiring) == 0)
            let visible = try await store.read { transaction in try transaction.keys(in: "notes") }
            #expect(visible.isEmpty)
        }
        for result in results {
            try result.get()
            returned.add(1, ordering: .releasing)
        }
        #expect(Self.commits(metrics) - before == 1)
        // Each write has its own transaction in the feed, in the order the writes ran, with no gap.
        let changes = try await store.read { try $0.changes(since: 0) }
        #expect(changes.map(\.key) == (0..<5).map { "n\($0)" })
        #expect(changes.map(\.sequence) == Array(1...5))
        #expect(changes.map(\.transaction) == Array(1...5))
    }

    @Test func withGroupingOffEveryWriteCommitsAlone() async throws {
        let metrics = TestMetrics()
        let store = try Self.store(metrics: metrics, groupCommit: .off)
        let before = Self.commits(metrics)
        let writes: [GroupedWrite] = (0..<4).map { index in
            { try $0.save(Note(title: "n\(index)", body: "b"), key: "n\(index)") }
        }
        for result in try await runInOneGroup(store, writes) { try result.get() }
        #expect(Self.commits(metrics) - before == 4)
    }

    @Test func aGroupHoldsNoMoreWritesThanItsMaximum() async throws {
        let metrics = TestMetrics()
        let store = try Self.store(metrics: metrics, groupCommit: .init(maximumWrites: 2))
        let before = Self.commits(metrics)
        let writes: [GroupedWrite] = (0..<5).map { index in
            { try $0.save(Note(title: "n\(index)", body: "b"), key: "n\(index)") }
        }
        for result in try await runInOneGroup(store, writes) { try result.get() }
        #expect(Self.commits(metrics) - before == 3)
        #expect(try await store.read { try $0.keys(in: "notes") }.count == 5)
    }

    /// A write that throws after saving, in the middle of a group: no revision, history, index entry, feed row
    /// or unique claim of it stays, the writes after it see the store as if it never ran, and the rest commit.
    @Test func aWriteThatThrowsInAGroupLeavesNoTrace() async throws {
        let store = try Self.store(CollectionOptions(indexes: [.path("title", unique: true)]))
        try await store.write { try $0.save(Note(title: "b1", body: "first"), key: "b") }
        let writes: [GroupedWrite] = [
            { try $0.save(Note(title: "a", body: "a"), key: "a") },
            { transaction in
                try transaction.save(Note(title: "claimed", body: "second"), key: "b")
                try transaction.save(Note(title: "d", body: "d"), key: "d")
                throw AbandonedWrite()
            },
            { transaction in
                // As if the abandoned write never ran.
                #expect(try transaction.document(in: "notes", key: "b")?.revision == 1)
                #expect(try transaction.document(in: "notes", key: "d") == nil)
                #expect(try transaction.history(in: "notes", key: "b").map(\.revision) == [1])
                #expect(try transaction.keys(in: "notes", index: "title", equalTo: "claimed").isEmpty)
                // Its unique value is free.
                try transaction.save(Note(title: "claimed", body: "c"), key: "c")
            },
        ]
        let results = try await runInOneGroup(store, writes)
        try results[0].get()
        #expect(throws: AbandonedWrite.self) { try results[1].get() }
        try results[2].get()
        try await store.read { transaction in
            #expect(try transaction.keys(in: "notes") == ["a", "b", "c"])
            #expect(try transaction.document(in: "notes", key: "b")?.revision == 1)
            #expect(try transaction.keys(in: "notes", index: "title", equalTo: "claimed") == ["c"])
            let changes = try transaction.changes(since: 0)
            #expect(changes.map(\.key) == ["b", "a", "c"])
            #expect(changes.map(\.sequence) == [1, 2, 3])
        }
        // Its revision was not used up either.
        #expect(try await store.write { try $0.save(Note(title: "b2", body: "third"), key: "b") } == 2)
    }

    /// The group's first write throwing: its whole transaction goes, and the writes queued behind it start a
    /// group of their own.
    @Test func aFirstWriteThatThrowsLeavesTheOthersTheirGroup() async throws {
        let store = try Self.store()
        let writes: [GroupedWrite] = [
            { transaction in
                try transaction.save(Note(title: "x", body: "x"), key: "x")
                throw AbandonedWrite()
            },
            { try $0.save(Note(title: "y", body: "y"), key: "y") },
            { try $0.save(Note(title: "z", body: "z"), key: "z") },
        ]
        let results = try await runInOneGroup(store, writes)
        #expect(throws: AbandonedWrite.self) { try results[0].get() }
        try results[1].get()
        try results[2].get()
        #expect(try await store.read { try $0.keys(in: "notes") } == ["y", "z"])
        #expect(try await store.read { try $0.changes(since: 0) }.map(\.transaction) == [1, 2])
    }

    /// Blocking writers on threads and async writers in tasks, at once: every write lands once, revisions count
    /// every increment, and the feed holds each write's change once, in one order.
    @Test func sixteenWritersOnThreadsAndTasksLoseNothing() async throws {
        let metrics = TestMetrics()
        let store = try Self.store(metrics: metrics)
        let perWriter = 40
        let before = Self.commits(metrics)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<16 {
                group.addTask {
                    for round in 0..<perWriter {
                        let key = "k\((writer + round) % 5)"
                        if writer % 2 == 0 {
                            try await store.write { try Self.increment(key, on: $0) }
                        } else {
                            try await Self.onThread { try store.write { try Self.increment(key, on: $0) } }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let changes = try await store.read { try $0.changes(since: 0) }
        #expect(changes.count == 16 * perWriter)
        #expect(changes.map(\.sequence) == Array(1...(16 * perWriter)))
        try await store.read { transaction in
            for key in (0..<5).map({ "k\($0)" }) {
                let stored = try #require(try transaction.document(in: "notes", key: key))
                let note = try #require(try transaction.load(Note.self, key: key)?.value)
                #expect(note.priority == stored.revision)
                #expect(changes.filter { $0.key == key }.map(\.revision) == Array(1...stored.revision))
            }
        }
        let commits = Self.commits(metrics) - before
        print("SQLiteGroupCommitTests: \(16 * perWriter) writes of 16 writers in \(commits) commits")
        #expect(commits < Int64(16 * perWriter))
    }

    static func increment(_ key: String, on transaction: SQLiteWriteTransaction) throws {
        let current = try transaction.load(Note.self, key: key)?.value.priority ?? 0
        try transaction.save(Note(title: key, body: "count", priority: current + 1), key: key)
    }

    /// Runs blocking `work` on a thread of its own.
    static func onThread(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread.detachNewThread {
                do {
                    try work()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
