import Foundation
import Hangar
import HangarTestSupport
import PostgresNIO
import PropertyList
import Synchronization
import Testing

@testable import HangarPostgres

/// Whether the failover tests may run: they promote standby 1 and stop the primary for good, so they run only in a
/// `Scripts/with-postgres.sh --standbys 2` invocation of their own, asked for by `HANGAR_TEST_FAILOVER=1`
/// (`.ci/run` does). Otherwise they are SKIPPED, loudly.
enum TestFailover {
    static var shouldRun: Bool {
        if ProcessInfo.processInfo.environment["HANGAR_TEST_FAILOVER"] == "1" { return true }
        warnOnce
        return false
    }

    private static let warnOnce: Void = {
        FileHandle.standardError.write(
            Data(
                ("WARNING: HANGAR_TEST_FAILOVER is not 1: the failover tests (which promote standby 1 and stop the "
                    + "primary) are SKIPPED (run them with HANGAR_TEST_FAILOVER=1 Scripts/with-postgres.sh "
                    + "--standbys 2 swift test --filter PostgresFailoverTests)\n").utf8))
    }()

    /// `host:port` of a harness URL.
    static func hostAndPort(_ url: String) throws -> String {
        guard let components = URLComponents(string: url), let host = components.host, let port = components.port
        else { throw TestReplicas.Missing(description: "a harness URL without host and port") }
        return "\(host):\(port)"
    }

    /// The primary's URL with standby 1 as a second host: libpq's several-host form.
    static func severalHostURL() throws -> String {
        let primary = try TestReplicas.require(TestReplicas.primaryURL, "HANGAR_TEST_POSTGRES_PRIMARY_URL")
        let standby = try TestReplicas.require(TestReplicas.url(1), "HANGAR_TEST_POSTGRES_STANDBY_1_URL")
        let first = try hostAndPort(primary)
        guard let range = primary.range(of: first) else {
            throw TestReplicas.Missing(description: "the primary's URL does not hold its host")
        }
        return primary.replacingCharacters(in: range, with: "\(first),\(try hostAndPort(standby))")
    }
}

/// What one write's caller was told.
private enum Outcome: Sendable {
    case acknowledged
    case failed(HangarError.Code)
    case unknown
}

/// What the writers were told, and when to stop.
private final class Tally: Sendable {
    let outcomes = Mutex<[Int: Outcome]>([:])
    let acknowledged = Atomic<Int>(0)
    let stop = Atomic<Bool>(false)

    var acknowledgedCount: Int { acknowledged.load(ordering: .relaxed) }
}

/// Failover on the harness: a URL of several hosts, the primary stopped for good and the synchronous standby
/// promoted in the middle of concurrent writers.
@Suite(.enabled(if: TestFailover.shouldRun), .serialized) struct PostgresFailoverTests {
    static let writers = 16

    /// Every write acknowledged before or after the failover is there, every one reported failed is not (an unknown
    /// outcome may be either), the store moved to the promoted server without being opened again, the change feed
    /// holds every document once with no gap in its numbering, and the feed's `LISTEN` is on the new primary.
    @Test func aFailoverAmidSixteenWritersLosesNoAcknowledgedWrite() async throws {
        let primaryData = try TestReplicas.require(
            ProcessInfo.processInfo.environment["HANGAR_TEST_POSTGRES_PRIMARY_DATA"], "the primary's data folder")
        let standbyData = try TestReplicas.require(TestReplicas.data(1), "standby 1's data folder")
        let standbyURL = try TestReplicas.require(TestReplicas.url(1), "standby 1's URL")
        var configuration = try testConfiguration(#function)
        configuration = try PostgresStoreConfiguration(
            url: try TestFailover.severalHostURL(), schema: configuration.schema)
        configuration.poolSize = 8
        configuration.acquireTimeout = .seconds(20)
        let store = try await PostgresStore(configuration: configuration)
        let tally = Tally()
        // A follower on a second instance, on the same URL, through the whole failover.
        let followerStore = try await PostgresStore(configuration: configuration)
        let followed = Mutex<[Int]>([])
        let following = Task {
            for try await change in followerStore.follow(after: 0) {
                followed.withLock { $0.append(change.sequence) }
            }
        }
        defer { following.cancel() }
        let writing = Task {
            await withTaskGroup(of: Void.self) { group in
                for writer in 0..<Self.writers {
                    group.addTask {
                        await Self.write(as: writer, in: store, tally: tally)
                    }
                }
            }
        }
        defer { writing.cancel() }
        try await PostgresReplicaTests.waitUntil(seconds: 120) { tally.acknowledgedCount >= 300 }
        let before = tally.acknowledgedCount
        // The synchronous standby promoted, the primary stopped at once (never started again).
        try TestReplicas.control(["-D", standbyData, "-w", "-t", "60", "promote"])
        try TestReplicas.control(["-D", primaryData, "-m", "immediate", "-w", "stop"])
        // The writers carry on, on the promoted server, with no restart of the store.
        try await PostgresReplicaTests.waitUntil(seconds: 120) {
            tally.acknowledgedCount >= before + 300
        }
        tally.stop.store(true, ordering: .relaxed)
        await writing.value
        #expect(store.engine.primary.host?.name == (try TestFailover.hostAndPort(standbyURL)))

        let told = tally.outcomes.withLock { $0 }
        let acknowledgedIDs = told.filter { if case .acknowledged = $0.value { true } else { false } }.keys
        let failedIDs = told.filter { if case .failed = $0.value { true } else { false } }.keys
        let unknown = told.values.filter { if case .unknown = $0 { true } else { false } }.count
        let present = try await Self.presentIDs(in: store, among: Array(told.keys))
        let lost = acknowledgedIDs.filter { !present.contains($0) }
        #expect(lost.isEmpty, "acknowledged writes missing after the failover: \(lost.sorted().prefix(10))")
        let wronglyFailed = failedIDs.filter { present.contains($0) }
        #expect(wronglyFailed.isEmpty, "writes reported failed but present: \(wronglyFailed.sorted().prefix(10))")
        #expect(acknowledgedIDs.count >= before + 300)
        let feed = try await Self.expectGapFreeFeed(of: store, present: present)
        try await Self.expectListening(on: standbyURL, channel: store.engine.sql.changes.channel)
        // The follower saw the feed as it is: every change once, in order, across the promotion.
        try await PostgresReplicaTests.waitUntil(seconds: 30) { followed.withLock { $0.count } >= feed }
        following.cancel()
        #expect(followed.withLock { $0 } == Array(1..<(feed + 1)), "the follower missed or repeated changes")
        await followerStore.close()
        print(
            "failover: \(acknowledgedIDs.count) writes acknowledged (\(before) before the promotion), "
                + "\(failedIDs.count) failed (absent), \(unknown) unknown")
        await store.close()
    }

    /// One writer: new documents `k<id>` one after another until `stop`, each outcome noted. A write that failed
    /// waits a little before the next (the primary is away).
    private static func write(as writer: Int, in store: PostgresStore, tally: Tally) async {
        var index = 0
        while !tally.stop.load(ordering: .relaxed), !Task.isCancelled {
            index += 1
            let id = writer * 1_000_000 + index
            let outcome: Outcome
            do {
                let revision = try await store.save(envelope: PostgresReplicaTests.envelope(id), key: "k\(id)", in: "c")
                #expect(revision == 1)
                outcome = .acknowledged
                tally.acknowledged.add(1, ordering: .relaxed)
            } catch let error as HangarError where error.code == .outcomeUnknown {
                outcome = .unknown
            } catch let error as HangarError {
                outcome = .failed(error.code)
            } catch {
                outcome = .failed(.database)
            }
            tally.outcomes.withLock { $0[id] = outcome }
            if case .acknowledged = outcome { continue }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Which of `ids` have their document now.
    private static func presentIDs(in store: PostgresStore, among ids: [Int]) async throws -> Set<Int> {
        var present = Set<Int>()
        for id in ids where try await store.document(in: "c", key: "k\(id)") != nil { present.insert(id) }
        return present
    }

    /// The feed numbers 1, 2, 3… with no gap, and holds each present document's creation once, no other.
    /// Returns the feed's length.
    private static func expectGapFreeFeed(of store: PostgresStore, present: Set<Int>) async throws -> Int {
        _ = await store.engine.numberPendingChanges()
        let changes = try await store.changes(since: 0)
        let sequences = changes.map(\.sequence)
        #expect(!changes.isEmpty)
        #expect(sequences == Array(1..<(changes.count + 1)), "the feed's numbering has gaps or repeats")
        var seen: [Int: Int] = [:]
        for change in changes {
            guard let id = Int(change.key.dropFirst()) else { continue }
            seen[id, default: 0] += 1
        }
        #expect(seen.filter { $0.value != 1 }.isEmpty, "documents in the feed more than once")
        #expect(Set(seen.keys) == present, "the feed and the documents differ")
        return changes.count
    }

    /// The feed's listening connection is on the promoted server (its `pg_stat_activity`), within a few seconds.
    private static func expectListening(on url: String, channel: String) async throws {
        var configuration = try PostgresStoreConfiguration(url: url)
        configuration.poolSize = 1
        let engine = try PostgresEngine(configuration: configuration)
        do {
            try await PostgresReplicaTests.waitUntil(seconds: 20) {
                let count = try await engine.withTransaction(.singleRead) { transaction in
                    var binds = PostgresBindings()
                    binds.append(channel)
                    return try await transaction.scalar(
                        "SELECT count(*) FROM pg_stat_activity WHERE query ILIKE 'LISTEN%' || $1 || '%'", binds,
                        as: Int64.self)
                }
                return (count ?? 0) >= 1
            }
        } catch {
            await engine.close()
            throw error
        }
        await engine.close()
    }
}
