import Foundation
import HangarTestSupport
import PropertyList
import Synchronization
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

/// The change feed: every committed save, delete and restore once, in commit order, with sequences from 1
/// and no gaps, whatever rolls back, whoever writes (threads, processes) and whenever a writer is killed;
/// retention's typed error; followers woken at once in the process and by polling across processes.
@Suite struct SQLiteChangeFeedTests {
    static func envelope(_ value: Int, class tag: String? = nil) -> PropertyList {
        var content: PropertyList.Dictionary = ["majorVersion": 2, "minorVersion": 1, "value": .integer(.init(value))]
        if let tag { content["class"] = .string(tag) }
        return .dictionary(content)
    }

    struct Failure: Error {}

    /// `collection/key@revision:kind`, as `hangar-stress feed-loop` acknowledges changes.
    static func label(_ change: Change) -> String {
        "\(change.collection)/\(change.key)@\(change.revision):\(change.kind.rawValue)"
    }

    /// Sequences run 1...n without a gap; each transaction's changes are contiguous, its id growing.
    static func checkContiguous(_ feed: [Change], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            feed.map(\.sequence) == Array(1...max(1, feed.count)).prefix(feed.count).map { $0 },
            sourceLocation: sourceLocation)
        var finished = Set<Int>()
        for (previous, change) in zip(feed, feed.dropFirst()) where previous.transaction != change.transaction {
            #expect(change.transaction > previous.transaction, sourceLocation: sourceLocation)
            #expect(
                finished.insert(previous.transaction).inserted, "transaction \(previous.transaction) split",
                sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: Backend.allCases) func everyCommitOnceRollbacksLeaveNoSequence(kind: Backend) throws {
        var configuration = StoreConfiguration()
        configuration.collections["notes"] = CollectionOptions(history: .keepAll)
        let store = try kind.makeStore(configuration)
        try store.write { try $0.save(envelope: Self.envelope(1, class: "Note"), key: "a", in: "notes") }
        // Saved, then thrown: no change, no number consumed.
        #expect(throws: Failure.self) {
            try store.write { transaction in
                try transaction.save(envelope: Self.envelope(2), key: "b", in: "notes")
                try transaction.save(envelope: Self.envelope(3), key: "a", in: "notes")
                throw Failure()
            }
        }
        #expect(try store.read { try $0.changes(since: 0) }.count == 1)
        // A transaction of three: contiguous, one transaction id.
        try store.write { transaction in
            try transaction.save(envelope: Self.envelope(4), key: "b", in: "notes")
            try transaction.save(envelope: Self.envelope(5), key: "a", in: "notes")
            try transaction.delete(key: "b", in: "notes")
        }
        try store.write { _ = try $0.restore(key: "a", in: "notes", revision: 1) }
        // A write that changes nothing takes no number either.
        let deletedMissing = try store.write { try $0.delete(key: "missing", in: "notes") }
        #expect(!deletedMissing)

        let feed = try store.read { try $0.changes(since: 0) }
        #expect(
            feed.map(Self.label) == [
                "notes/a@1:save", "notes/b@1:save", "notes/a@2:save", "notes/b@1:delete", "notes/a@3:restore",
            ])
        Self.checkContiguous(feed)
        #expect(Set(feed[1...3].map(\.transaction)).count == 1)
        #expect(feed[0].transaction != feed[1].transaction && feed[4].transaction != feed[3].transaction)
        #expect(feed[0].version == DocumentVersion(major: 2, minor: 1))
        #expect(feed[0].classTag == "Note" && feed[1].classTag == nil)
        #expect(feed[4].classTag == "Note")
        #expect(abs(feed[0].committedAt.timeIntervalSinceNow) < 60)
        // Reading: since, limit, by collection, in a read transaction.
        #expect(try store.read { try $0.changes(since: 2, limit: 2) }.map(\.sequence) == [3, 4])
        try store.write { try $0.save(envelope: Self.envelope(6), key: "x", in: "other") }
        #expect(try store.read { try $0.changes(since: 0, in: "other") }.map(\.sequence) == [6])
        #expect(try store.read { try $0.changes(since: 3, in: "notes") }.map(\.sequence) == [4, 5])
        let (lastSequence, afterFive) = try store.read { transaction in
            (try transaction.lastChangeSequence(), try transaction.changes(since: 5).map(\.key))
        }
        #expect(lastSequence == 6 && afterFive == ["x"])
        // Inside the writing transaction, its own changes are visible.
        let ownChanges = try store.write { transaction in
            try transaction.save(envelope: Self.envelope(7), key: "y", in: "other")
            return try transaction.changes(since: 6).map(\.sequence)
        }
        #expect(ownChanges == [7])
    }

    @Test func concurrentThreadsWithRollbacksFeedHoldsEachCommitOnceInOrder() throws {
        let store = try Backend.file.makeStore()
        let committed = Mutex<[[String]]>([])
        let threads = 4
        let transactionsPerThread = 60
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var random = SeededGenerator(seed: UInt64(thread + 1) * 7919)
            for index in 0..<transactionsPerThread {
                let keys = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                    "k\(Int.random(in: 0..<5, using: &random))"
                }
                let rollBack = Int.random(in: 0..<4, using: &random) == 0
                do {
                    let labels = try store.write { transaction in
                        var labels: [String] = []
                        for key in keys {
                            let revision = try transaction.save(
                                envelope: Self.envelope(index), key: key, in: "t\(thread % 2)")
                            labels.append("t\(thread % 2)/\(key)@\(revision):save")
                        }
                        if rollBack { throw Failure() }
                        return labels
                    }
                    committed.withLock { $0.append(labels) }
                } catch is Failure {
                    continue
                } catch {
                    Issue.record("thread \(thread): \(error)")
                }
            }
        }
        let transactions = committed.withLock { $0 }
        let feed = try store.read { try $0.changes(since: 0) }
        Self.checkContiguous(feed)
        // Exactly the committed changes, each once, grouped by transaction as committed.
        #expect(feed.count == transactions.reduce(0) { $0 + $1.count })
        let grouped = Dictionary(grouping: feed, by: \.transaction).values.map { $0.map(Self.label) }
        #expect(Set(grouped) == Set(transactions))
        #expect(Set(feed.map(Self.label)).count == feed.count)
        // In commit order: each key's revisions grow with the sequence.
        var lastRevision: [String: Int] = [:]
        for change in feed {
            let name = "\(change.collection)/\(change.key)"
            #expect(change.revision > lastRevision[name, default: 0])
            lastRevision[name] = change.revision
        }
        #expect(transactions.count > threads * transactionsPerThread / 2)
    }

    /// The `ack` lines of `hangar-stress feed-loop`, one array of labels per committed transaction.
    static func acknowledged(_ lines: [String]) -> [[String]] {
        lines.filter { $0.hasPrefix("ack ") }.map { $0.split(separator: " ").dropFirst().map(String.init) }
    }

    @Test func twoProcessesWritingOneFileFeedHoldsEachCommitOnce() async throws {
        let directory = try temporaryDirectory()
        let path = directory + "/store.sqlite"
        _ = try SQLiteStore(path: path, store: stressConfiguration())
        let children = try [1, 2].map { seed in
            try ChildProcess(["feed-loop", path, "\(seed)", "80"], stderrPath: directory + "/stderr-\(seed).txt")
        }
        var transactions: [[String]] = []
        for child in children {
            let status = child.waitForExit()
            #expect(status == 0, "\(child.standardError)")
            let lines = child.completeLines()
            #expect(lines.last == "done")
            transactions += Self.acknowledged(lines)
        }
        let feed = try await SQLiteStore(path: path, store: stressConfiguration()).changes(since: 0)
        Self.checkContiguous(feed)
        #expect(feed.count == transactions.reduce(0) { $0 + $1.count })
        let grouped = Dictionary(grouping: feed, by: \.transaction).values.map { $0.map(Self.label) }
        #expect(Set(grouped) == Set(transactions))
        #expect(Set(feed.map(Self.label)).count == feed.count)
        #expect(transactions.count > 80)
    }

    @Test func writerKilledMidTransactionLeavesNoSequenceBehind() throws {
        let directory = try temporaryDirectory()
        let path = directory + "/store.sqlite"
        var random = SeededGenerator(seed: UInt64.random(in: 1...UInt64.max))
        var acknowledged: [[String]] = []
        for cycle in 0..<6 {
            let child = try ChildProcess(
                ["feed-loop", path, "\(random.next())", "0"], stderrPath: directory + "/stderr.txt")
            guard child.waitForFirstLine("ready", timeout: 60) else {
                child.killAndWait()
                Issue.record("cycle \(cycle): the child did not start: \(child.standardError)")
                return
            }
            usleep(UInt32(20_000 + random.next() % 150_000))
            let status = child.killAndWait()
            #expect(ChildProcess.wasKilled(status), "\(child.standardError)")
            acknowledged += Self.acknowledged(child.completeLines())

            let store = try SQLiteStore(path: path, store: stressConfiguration())
            let feed = try store.read { try $0.changes(since: 0) }
            Self.checkContiguous(feed)
            let grouped = Set(Dictionary(grouping: feed, by: \.transaction).values.map { $0.map(Self.label) })
            // Every acknowledged transaction is there whole; at most the one per kill not yet acknowledged more.
            #expect(Set(acknowledged).isSubset(of: grouped))
            #expect(grouped.count - Set(acknowledged).count <= cycle + 1)
            // Each key's last change is its state: a committed change, nothing from the killed transaction.
            var last: [String: Change] = [:]
            for change in feed { last["\(change.collection)/\(change.key)"] = change }
            let states = try store.read { transaction in
                try last.values.map { change in
                    (change, try transaction.document(in: change.collection, key: change.key)?.revision)
                }
            }
            for (change, revision) in states {
                #expect(revision == (change.kind == .delete ? nil : change.revision), "\(Self.label(change))")
            }
            // The next commit continues without a gap.
            try store.write { try $0.save(envelope: Self.envelope(cycle), key: "parent", in: "parent") }
            let next = try store.read { try $0.changes(since: feed.count) }
            #expect(next.map(\.sequence) == [feed.count + 1])
            acknowledged.append(next.map(Self.label))
        }
        #expect(acknowledged.count > 6)
    }

    @Test func retentionByCountThrowsTooOldAndFollowsFromTheEdge() async throws {
        var configuration = StoreConfiguration()
        configuration.changeRetention = ChangeRetention(maximumCount: 5, maximumAge: nil)
        let store = try Backend.file.makeStore(configuration)
        for value in 1...20 { try await store.write { try $0.save(envelope: Self.envelope(value), key: "k", in: "c") } }
        var errors: [(any Error)?] = [nil, nil, nil]
        do { _ = try await store.read { try $0.changes(since: 14) } } catch { errors[0] = error }
        do { _ = try await store.read { try $0.changes(since: 0, in: "c") } } catch { errors[1] = error }
        for error in errors.prefix(2) {
            #expect((error as? HangarError)?.code == .changesTooOld)
            #expect((error as? HangarError)?.oldestRetainedSequence == 16)
        }
        #expect(try await store.read { try $0.changes(since: 15) }.map(\.sequence) == Array(16...20))
        // A follower from before the retained range fails on its first read: nothing skipped silently.
        var tooOld = store.follow(after: 3).makeAsyncIterator()
        do { _ = try await tooOld.next() } catch { errors[2] = error }
        #expect((errors[2] as? HangarError)?.code == .changesTooOld)
        // One at the edge gets everything kept.
        var iterator = store.follow(after: 15).makeAsyncIterator()
        var seen: [Int] = []
        for _ in 16...20 { seen.append(try await iterator.next()?.sequence ?? -1) }
        #expect(seen == Array(16...20))
    }

    @Test func retentionByAgePrunesOldChanges() throws {
        var configuration = StoreConfiguration()
        configuration.changeRetention = ChangeRetention(maximumCount: nil, maximumAge: 0.5)
        let store = try Backend.file.makeStore(configuration)
        try store.write { try $0.save(envelope: Self.envelope(1), key: "a", in: "c") }
        try store.write { try $0.save(envelope: Self.envelope(2), key: "b", in: "c") }
        #expect(try store.read { try $0.changes(since: 0) }.count == 2)
        usleep(700_000)
        try store.write { try $0.save(envelope: Self.envelope(3), key: "c", in: "c") }
        #expect(try store.read { try $0.changes(since: 2) }.map(\.sequence) == [3])
        #expect(throws: HangarError.self) { try store.read { try $0.changes(since: 1) } }
    }

    @Test(.timeLimit(.minutes(1))) func inProcessFollowerIsWokenAtOnceNotByPolling() async throws {
        var configuration = StoreConfiguration()
        // Polling this rarely, any delivery within the bound below can only be the commit's wake-up (the bound
        // is generous, so a loaded machine does not fail the test; a poll would take an hour).
        configuration.followPollInterval = .seconds(3600)
        let store = try Backend.file.makeStore(configuration)
        try await store.write { try $0.save(envelope: Self.envelope(1), key: "a", in: "c") }
        let follower = Task {
            var received: [Change] = []
            for try await change in store.follow(after: 0, in: "c") {
                received.append(change)
                if received.count == 2 { break }
            }
            return received
        }
        try await Task.sleep(for: .milliseconds(200))
        try await store.write { try $0.save(envelope: Self.envelope(2), key: "b", in: "c") }
        let committed = ContinuousClock.now
        let received = try await follower.value
        #expect(ContinuousClock.now - committed < .seconds(30))
        #expect(received.map(\.key) == ["a", "b"])
    }

    @Test func crossProcessFollowerSeesAChildsCommitWithinTheBoundedDelay() async throws {
        let directory = try temporaryDirectory()
        let path = directory + "/store.sqlite"
        let store = try SQLiteStore(path: path, store: stressConfiguration())
        let start = try await store.read { try $0.lastChangeSequence() }
        let follower = Task {
            var iterator = store.follow(after: start, in: "feed").makeAsyncIterator()
            let change = try await iterator.next()
            return (change, ContinuousClock.now)
        }
        try await Task.sleep(for: .milliseconds(200))
        let child = try ChildProcess(["feed-loop", path, "42", "5"], stderrPath: directory + "/stderr.txt")
        #expect(child.waitForExit() == 0, "\(child.standardError)")
        let exited = ContinuousClock.now
        let (change, seen) = try await follower.value
        #expect(change?.sequence == start + 1)
        // The first change the child committed (its first `ack` line).
        let firstAcknowledged = Self.acknowledged(child.completeLines()).first?.first
        #expect(change.map(Self.label) == firstAcknowledged)
        // The child's commit came before its exit; the follower saw it within a bounded delay of it. The bound
        // is generous: the whole suite runs in parallel on two cores, and this only proves the follower is
        // woken by polling at all (the latency itself is measured by `hangar-bench --filter follow`: median 37 ms).
        #expect(seen - exited < .seconds(30))
    }

    @Test func cancellingEndsAFollower() async throws {
        let store = try Backend.file.makeStore()
        let follower = Task {
            var count = 0
            for try await _ in store.follow(after: 0) { count += 1 }
            return count
        }
        try await Task.sleep(for: .milliseconds(150))
        follower.cancel()
        #expect(try await follower.value == 0)
    }

    @Test func aStoreFromSchemaTwoUpgradesWithAnEmptyFeed() throws {
        let directory = try temporaryDirectory()
        let path = directory + "/store.sqlite"
        do {
            let store = try SQLiteStore(path: path)
            try store.write { try $0.save(envelope: Self.envelope(1), key: "a", in: "c") }
        }
        let raw = try SQLiteConnection(path: path, mode: .readWrite, busyTimeout: 1_000)
        try raw.execute(
            "DROP TABLE changes; DROP TABLE change_counter; DROP TABLE mirror_cursors; "
                + "\(StoreSchemaDowngrade.dropKeyIDs) PRAGMA user_version = 2")
        let store = try SQLiteStore(path: path)
        #expect(try store.read { try $0.changes(since: 0) }.isEmpty)
        try store.write { try $0.save(envelope: Self.envelope(2), key: "a", in: "c") }
        #expect(try store.read { try $0.changes(since: 0) }.map(Self.label) == ["c/a@2:save"])
        #expect(try raw.integer("PRAGMA user_version") == SQLiteSchema.currentVersion)
    }
}
