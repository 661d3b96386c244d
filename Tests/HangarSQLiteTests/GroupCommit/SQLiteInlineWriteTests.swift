import Dispatch
import Foundation
import Hangar
import HangarTestSupport
import MetricsTestKit
import PropertyList
import Synchronization
import Testing

@testable import HangarSQLite

/// Single writes (`store.save`, `store.delete`) run by whoever holds the writer's turn when their place comes:
/// queued behind another write they join its group, without a task switch of their own, and each still fails
/// alone, returns only once the group has committed, and keeps its own place in the feed.
@Suite struct SQLiteInlineWriteTests {
    /// Holds the writer with a write whose body waits, queues `count` single writes behind it (in order), then
    /// lets them all run; returns their results in queue order. Its tasks run on ``groupFormerQueue``: forming the
    /// queue depends on no free thread of the cooperative pool.
    static func queuedBehindAHeldWrite<T: Sendable>(
        _ store: SQLiteStore, _ writes: [@Sendable () async throws -> T]
    ) async throws -> [Result<T, any Error>] {
        try await withTaskExecutorPreference(groupFormerQueue) { try await queue(store, writes) }
    }

    private static func queue<T: Sendable>(
        _ store: SQLiteStore, _ writes: [@Sendable () async throws -> T]
    ) async throws -> [Result<T, any Error>] {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let held = Task(executorPreference: groupFormerQueue) {
            try await store.write { transaction in
                defer {
                    entered.signal()
                    release.wait()
                }
                try transaction.save(Note(title: "held", body: "h"), key: "held")
            }
        }
        try await waitFor(entered)
        var tasks: [Task<T, any Error>] = []
        for (index, write) in writes.enumerated() {
            tasks.append(Task(executorPreference: groupFormerQueue) { try await write() })
            try await waitUntil { store.writer.waiting == index + 1 }
        }
        release.signal()
        try await held.value
        var results: [Result<T, any Error>] = []
        for task in tasks { results.append(await task.result) }
        return results
    }

    @Test func singleWritesQueuedBehindAWriteShareItsCommitAndFailAlone() async throws {
        let metrics = TestMetrics()
        let store = try SQLiteGroupCommitTests.store(metrics: metrics)
        try await store.write { try $0.save(Note(title: "old", body: "o"), key: "gone") }
        let before = SQLiteGroupCommitTests.commits(metrics)
        let writes: [@Sendable () async throws -> String] = [
            { "\(try await store.save(Note(title: "a", body: "a"), key: "a"))" },
            // Expects a revision the key does not have: refused, and nothing of it stays.
            { "\(try await store.save(Note(title: "b", body: "b"), key: "b", expectedRevision: 3))" },
            { "\(try await store.delete(key: "gone", in: "notes"))" },
            {
                let envelope = Note.format.seal(["title": "c", "body": "c", "priority": 0])
                return "\(try await store.save(envelope: envelope, key: "c", in: "notes"))"
            },
        ]
        let results = try await Self.queuedBehindAHeldWrite(store, writes)
        #expect(try results[0].get() == "1")
        #expect(throws: HangarError.self) { try results[1].get() }
        if case .failure(let error as HangarError) = results[1] { #expect(error.code == .conflict) }
        #expect(try results[2].get() == "true")
        #expect(try results[3].get() == "1")
        // The held write and the three that succeeded: one commit.
        #expect(SQLiteGroupCommitTests.commits(metrics) - before == 1)
        try await store.read { transaction in
            #expect(try transaction.keys(in: "notes") == ["a", "c", "held"])
            let changes = try transaction.changes(since: 1)
            #expect(changes.map(\.key) == ["held", "a", "gone", "c"])
            #expect(changes.map(\.sequence) == [2, 3, 4, 5])
            #expect(changes.map(\.transaction) == [2, 3, 4, 5])
        }
    }

    @Test func aSingleWriteCancelledInTheQueueWritesNothing() async throws {
        try await withTaskExecutorPreference(groupFormerQueue) { try await cancelInTheQueue() }
    }

    private func cancelInTheQueue() async throws {
        let store = try SQLiteGroupCommitTests.store()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let held = Task(executorPreference: groupFormerQueue) {
            try await store.write { transaction in
                defer {
                    entered.signal()
                    release.wait()
                }
                try transaction.save(Note(title: "held", body: "h"), key: "held")
            }
        }
        try await waitFor(entered)
        let cancelled = Task(executorPreference: groupFormerQueue) {
            try await store.save(Note(title: "x", body: "x"), key: "x")
        }
        try await waitUntil { store.writer.waiting == 1 }
        cancelled.cancel()
        try await waitUntil { store.writer.waiting == 0 }
        release.signal()
        try await held.value
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(try await store.read { try $0.keys(in: "notes") } == ["held"])
        #expect(try await store.save(Note(title: "x", body: "x"), key: "x") == 1)
    }

    /// Single writes from many tasks at once, with blocking and async writes among them: every one lands once,
    /// in one order, and the feed has no gap.
    @Test func manySingleWritesAtOnceLoseNothing() async throws {
        let metrics = TestMetrics()
        let store = try SQLiteGroupCommitTests.store(metrics: metrics)
        let before = SQLiteGroupCommitTests.commits(metrics)
        let perWriter = 30
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<16 {
                group.addTask { try await Self.write(writer, rounds: perWriter, to: store) }
            }
            try await group.waitForAll()
        }
        let changes = try await store.read { try $0.changes(since: 0) }
        #expect(changes.count == 16 * perWriter)
        #expect(changes.map(\.sequence) == Array(1...(16 * perWriter)))
        #expect(try await store.read { try $0.keys(in: "notes") }.count == 16 * perWriter)
        let commits = SQLiteGroupCommitTests.commits(metrics) - before
        print("SQLiteInlineWriteTests: \(16 * perWriter) writes in \(commits) commits")
        #expect(commits <= Int64(16 * perWriter))
    }

    /// Writer `writer`'s saves: an async write, a blocking one on a thread, or single writes, by its number.
    static func write(_ writer: Int, rounds: Int, to store: SQLiteStore) async throws {
        for round in 0..<rounds {
            let key = "w\(writer)-\(round)"
            switch writer % 4 {
            case 0:
                try await store.write { (transaction: SQLiteWriteTransaction) throws -> Void in
                    try transaction.save(Note(title: key, body: "w"), key: key)
                }
            case 1:
                try await SQLiteGroupCommitTests.onThread {
                    _ = try store.write { try $0.save(Note(title: key, body: "t"), key: key) }
                }
            default:
                _ = try await store.save(Note(title: key, body: "s"), key: key)
            }
        }
    }

    /// A model save planned without the stored document, which turns out to be a newer minor: the save keeps
    /// the stored keys the model does not know, as a save in a transaction does.
    @Test func aSingleModelSaveOverANewerMinorKeepsItsKeys() async throws {
        let store = try SQLiteGroupCommitTests.store()
        let current = Note.format.current
        let newer = Note.format.seal(
            ["title": "t", "body": "b", "priority": 1, "futureKey": "kept"],
            version: .init(major: current.major, minor: current.minor + 1))
        try await store.write { try $0.save(envelope: newer, key: "n", in: "notes") }
        #expect(try await store.save(Note(title: "t2", body: "b"), key: "n", expectedRevision: 1) == 2)
        let stored = try #require(try await store.read { try $0.document(in: "notes", key: "n") })
        guard case .dictionary(let content) = try stored.envelope() else {
            Issue.record("not a dictionary")
            return
        }
        #expect(content["futureKey"] == .string("kept"))
        #expect(content["title"] == .string("t2"))
        #expect(stored.version == DocumentVersion(major: current.major, minor: current.minor + 1))
    }
}
