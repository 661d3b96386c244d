import Foundation
import Hangar
import HangarTestSupport
import PostgresNIO
import PropertyList
import Testing

@testable import HangarPostgres

/// The feed numbered after commit (the `Engines` article): its promises under a long transaction and under 16
/// clients, and the notifications that wake followers on other instances.
@Suite(.enabled(if: TestPostgres.shouldRun)) struct PostgresChangeFeedTests {
    /// Opens a store on `schema` (created by the first), as one instance of an app does.
    static func openInstance(
        schema: String, pollInterval: Duration = .milliseconds(75), poolSize: Int = 4,
        applicationName: String? = nil
    ) async throws -> PostgresStore {
        var store = stressConfiguration()
        store.followPollInterval = pollInterval
        let url = postgresURL(
            try TestPostgres.requireURL(), schema: schema,
            applicationName: applicationName ?? uniqueApplicationName("feed"))
        var configuration = try PostgresStoreConfiguration(url: url, store: store)
        configuration.poolSize = poolSize
        configuration.connectTimeout = .seconds(15)
        return try await PostgresStore(configuration: configuration)
    }

    static func note(_ text: String, _ number: Int) -> PropertyList {
        .dictionary(["majorVersion": 1, "minorVersion": 0, "note": .string(text), "n": .integer(.init(number))])
    }

    /// Follows `store` from `sequence` until `count` changes arrived (or 60 s passed).
    static func collect(_ store: PostgresStore, after sequence: Int = 0, count: Int) -> Task<[Change], any Error> {
        Task {
            var seen: [Change] = []
            guard count > 0 else { return seen }
            for try await change in store.follow(after: sequence) {
                seen.append(change)
                if seen.count == count { break }
            }
            return seen
        }
    }

    /// A transaction that stays open while 20 later ones commit (on another instance), then commits: a follower
    /// started while it is open sees the 20 at once (the open transaction holds nothing back), then the long
    /// one's two changes, each exactly once, numbered 1…23 without gaps; a reader afterwards sees the same order.
    @Test func aFollowerStartedDuringALongTransactionSeesEveryChangeOnceInOneOrder() async throws {
        let schema = TestPostgres.uniqueSchemaName("longtx")
        let first = try await Self.openInstance(schema: schema)
        let second = try await Self.openInstance(schema: schema)
        try await first.write { try await $0.save(envelope: Self.note("before", 0), key: "before", in: "ledger") }
        let open = Flag()
        let release = Flag()
        let long = Task {
            try await first.write { transaction in
                try await transaction.save(envelope: Self.note("long", 1), key: "long", in: "ledger")
                open.set()
                while !release.isSet { try await Task.sleep(for: .milliseconds(5)) }
                try await transaction.save(envelope: Self.note("long", 2), key: "long-2", in: "ledger")
            }
        }
        while !open.isSet { try await Task.sleep(for: .milliseconds(5)) }
        let follower = Self.collect(first, count: 23)
        let seenEarly = Self.collect(first, after: 1, count: 20)
        for number in 0..<20 {
            try await second.write {
                try await $0.save(envelope: Self.note("later", number), key: "later-\(number)", in: "ledger")
            }
        }
        // The 20 later commits reach a follower while the long transaction is still open.
        let early = try await seenEarly.value
        #expect(early.map(\.key) == (0..<20).map { "later-\($0)" })
        release.set()
        try await long.value
        let seen = try await follower.value
        #expect(seen.map(\.sequence) == Array(1...23))
        #expect(seen.map(\.key) == ["before"] + (0..<20).map { "later-\($0)" } + ["long", "long-2"])
        // The long transaction's two changes: contiguous, one transaction id (its first sequence).
        #expect(seen.suffix(2).map(\.transaction) == [22, 22])
        let again = try await second.changes(since: 0)
        #expect(again == seen)
        await first.close()
        await second.close()
        try await dropSchema(of: first.postgresConfiguration)
    }

    /// 16 clients save 3,200 times in all, to 40 shared documents (one save or two per transaction, with the
    /// expected revision they last read, some transactions rolled back), while a follower reads along. The feed
    /// then holds every committed save once, numbered 1…n; each document's revisions appear 1, 2, 3, … in it;
    /// each transaction's changes are contiguous under its first sequence; the follower saw exactly that list.
    @Test func sixteenClientsLeaveTheFeedGapFreeAndEachDocumentsRevisionsContiguous() async throws {
        let schema = TestPostgres.uniqueSchemaName("sixteen")
        let store = try await Self.openInstance(schema: schema, poolSize: 16)
        let clients = 16
        let transactionsEach = 150
        struct Rollback: Error {}
        let follower = Task {
            var seen: [Change] = []
            for try await change in store.follow(after: 0) {
                seen.append(change)
                if change.key == "done" { break }
            }
            return seen
        }
        let committed = try await withThrowingTaskGroup(of: [[String]].self) { group in
            for client in 0..<clients {
                group.addTask {
                    var random = SeededGenerator(seed: UInt64(client + 1))
                    var mine: [[String]] = []
                    for number in 0..<transactionsEach {
                        let keys = (0..<Int.random(in: 1...2, using: &random)).map { _ in
                            "doc-\(Int.random(in: 0..<40, using: &random))"
                        }.sorted()  // in one order, so two transactions never wait for each other in a cycle
                        let rollBack = Int.random(in: 0..<10, using: &random) == 0
                        do {
                            try await store.write { transaction in
                                for key in keys {
                                    try await transaction.save(
                                        envelope: Self.note("c\(client)", number), key: key, in: "ledger")
                                }
                                if rollBack { throw Rollback() }
                            }
                            mine.append(keys)
                        } catch is Rollback {}
                    }
                    return mine
                }
            }
            var all: [[String]] = []
            for try await mine in group { all += mine }
            return all
        }
        try await store.write { try await $0.save(envelope: Self.note("done", 0), key: "done", in: "ledger") }
        let seen = try await follower.value
        let changes = try await store.changes(since: 0)
        let total = committed.reduce(0) { $0 + $1.count } + 1
        #expect(total > 2_500)
        #expect(changes.map(\.sequence) == Array(1...total))
        #expect(seen == changes)
        var revisions: [String: Int] = [:]
        for change in changes {
            let last = revisions[change.key] ?? 0
            #expect(change.revision == last + 1, "\(change.key): revision \(change.revision) after \(last)")
            revisions[change.key] = change.revision
        }
        let byTransaction = Dictionary(grouping: changes, by: \.transaction)
        #expect(byTransaction.count == committed.count + 1)
        for (id, members) in byTransaction {
            #expect(members.map(\.sequence) == Array(id..<(id + members.count)))
        }
        #expect(Set(byTransaction.values.map { $0.map(\.key) }) == Set(committed + [["done"]]))
        let pending = try await store.engine.withTransaction(.read) { transaction in
            try await transaction.scalar(transaction.sql.changes.pendingCount, as: Int64.self)
        }
        #expect(pending == 0)
        await store.close()
        try await dropSchema(of: store.postgresConfiguration)
    }

    /// Changes committed but never numbered (their writer lost its connection right after `COMMIT`) are
    /// numbered by a follower's next look, with no write after them.
    @Test func changesLeftPendingAreNumberedByAFollower() async throws {
        let schema = TestPostgres.uniqueSchemaName("pending")
        let store = try await Self.openInstance(schema: schema)
        // Committed with the changes pending, as a writer whose connection is lost after COMMIT leaves them: noted
        // by a recorder of its own (which the engine does not number after this COMMIT) while another session
        // holds the numbering lock (so they are not numbered in place).
        let held = Flag()
        let release = Flag()
        let holder = Task {
            try await store.engine.withTransaction(.write) { transaction in
                try await transaction.execute(transaction.sql.changes.numberingLock)
                held.set()
                while !release.isSet { try await Task.sleep(for: .milliseconds(5)) }
            }
        }
        while !held.isSet { try await Task.sleep(for: .milliseconds(5)) }
        try await store.engine.withTransaction(.write) { transaction in
            let orphan = PostgresChangeRecorder()
            orphan.record(
                .save, collection: "ledger", key: "orphan", revision: 1, version: DocumentVersion(major: 1, minor: 0),
                classTag: nil)
            try await orphan.finish(retention: .keepAll, in: transaction)
            #expect(orphan.ticket != nil)
        }
        release.set()
        try await holder.value
        let pending = try await store.engine.withTransaction(.read) { transaction in
            try await transaction.scalar(transaction.sql.changes.pendingCount, as: Int64.self)
        }
        #expect(pending == 1)
        let before = try await store.read { try await $0.lastChangeSequence() }
        let seen = try await Self.collect(store, count: 1).value
        #expect(seen.map(\.key) == ["orphan"])
        #expect(seen.map(\.sequence) == [before + 1])
        await store.close()
        try await dropSchema(of: store.postgresConfiguration)
    }

    /// Single writes that find the numbering lock taken return once committed, without waiting for it; a read of
    /// the same store waits for their numbering, and then finds them in the feed, in the order they returned.
    @Test func singleWritesReturnBeforeTheirNumberingAndReadsOfTheStoreWaitForIt() async throws {
        let schema = TestPostgres.uniqueSchemaName("offpath")
        let store = try await Self.openInstance(schema: schema)
        let held = Flag()
        let release = Flag()
        let holder = Task {
            try await store.engine.withTransaction(.write) { transaction in
                try await transaction.execute(transaction.sql.changes.numberingLock)
                held.set()
                while !release.isSet { try await Task.sleep(for: .milliseconds(5)) }
            }
        }
        while !held.isSet { try await Task.sleep(for: .milliseconds(5)) }
        // Committed while nobody can number: each returns.
        for index in 1...3 {
            #expect(try await store.save(envelope: Self.note("n", index), key: "k\(index)", in: "ledger") == 1)
        }
        let pending = try await store.engine.withTransaction(.singleRead) { transaction in
            try await transaction.scalar(transaction.sql.changes.pendingCount, as: Int64.self)
        }
        #expect(pending == 3)
        let read = Task { try await store.read { try await $0.changes(since: 0) } }
        try await Task.sleep(for: .milliseconds(200))
        release.set()
        try await holder.value
        let changes = try await read.value
        #expect(changes.map(\.key) == ["k1", "k2", "k3"])
        #expect(changes.map(\.sequence) == [1, 2, 3])
        await store.close()
        try await dropSchema(of: store.postgresConfiguration)
    }
}
