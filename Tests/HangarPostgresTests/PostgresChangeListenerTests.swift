import Foundation
import Hangar
import HangarTestSupport
import PostgresNIO
import PropertyList
import Synchronization
import Testing

@testable import HangarPostgres

/// `LISTEN`/`NOTIFY` as the followers' bell across instances: with a poll interval far longer than the test, a
/// commit on one instance still reaches a follower on another (only a notification can have woken it), also after
/// the listening connection was terminated (it listens again, on a new connection); with the listening connection
/// terminated just before a commit, a follower still has the change within one poll interval.
@Suite(.enabled(if: TestPostgres.shouldRun)) struct PostgresChangeListenerTests {
    /// The backend pids listening on `applicationName`'s connections.
    static func listeners(_ applicationName: String, through admin: PostgresEngine) async throws -> [Int32] {
        try await admin.withTransaction(.read) { transaction in
            try await transaction.query(
                """
                SELECT pid FROM pg_stat_activity
                WHERE application_name = $1 AND query LIKE 'LISTEN %' AND pid <> pg_backend_pid()
                """, binds(applicationName)
            ).map { try $0.decode(Int32.self) }
        }
    }

    /// Waits (at most 60 s) until `applicationName` has one listening session other than `old`; returns its pid.
    static func newListener(_ applicationName: String, other old: [Int32] = [], through admin: PostgresEngine)
        async throws -> [Int32]
    {
        var listening: [Int32] = []
        for _ in 0..<6_000 where listening.isEmpty || listening == old {
            try await Task.sleep(for: .milliseconds(10))
            listening = try await listeners(applicationName, through: admin)
        }
        return listening
    }

    /// A follower of `store` in a task of its own, and the keys it has seen.
    final class Follower: Sendable {
        /// The keys seen, in order.
        final class Seen: Sendable {
            let keys = Mutex<[String]>([])
        }

        let seen = Seen()
        let task: Task<Void, any Error>

        init(_ store: PostgresStore) {
            let seen = self.seen
            task = Task {
                for try await change in store.follow(after: 0) { seen.keys.withLock { $0.append(change.key) } }
            }
        }

        /// Saves `key` through `writer`, then waits until the follower has it (at most `limit`); returns how long
        /// that took from the write's answer (the commit numbered, so a follower may read it), or nil when it did
        /// not come. The write's own time is left out: on a loaded machine one commit's flush can take seconds.
        func delay(of key: String, from writer: PostgresStore, limit: Duration = .seconds(60)) async throws
            -> Duration?
        {
            try await writer.write {
                try await $0.save(envelope: PostgresChangeFeedTests.note(key, 0), key: key, in: "ledger")
            }
            let start = ContinuousClock.now
            while ContinuousClock.now - start < limit {
                if seen.keys.withLock({ $0.contains(key) }) { return ContinuousClock.now - start }
                try await Task.sleep(for: .milliseconds(2))
            }
            return nil
        }
    }

    @Test func aCommitOnAnotherInstanceRingsAFollowerAlsoAfterTheListenerWasTerminated() async throws {
        let schema = TestPostgres.uniqueSchemaName("ring")
        let name = uniqueApplicationName("ring")
        // No poll within the test: only a notification can wake the follower.
        let following = try await PostgresChangeFeedTests.openInstance(
            schema: schema, pollInterval: .seconds(3_600), applicationName: name)
        let writing = try await PostgresChangeFeedTests.openInstance(schema: schema)
        let admin = try PostgresEngine(configuration: try testConfiguration("ringadmin"))
        let follower = Follower(following)
        let first = try await Self.newListener(name, through: admin)
        #expect(first.count == 1)
        var rung: [Duration?] = []
        for number in 0..<5 { rung.append(try await follower.delay(of: "rung-\(number)", from: writing)) }
        #expect(rung.allSatisfy { $0 != nil }, "\(rung)")
        // Terminated: the listener connects and listens again, and rings again.
        #expect(try await PostgresFaultTests.terminateListeners(name, through: admin) == 1)
        let second = try await Self.newListener(name, other: first, through: admin)
        #expect(second.count == 1 && second != first)
        let again = try await follower.delay(of: "again", from: writing)
        #expect(again != nil)
        print("PostgresChangeListenerTests: rung \(rung), rung again after a new LISTEN \(String(describing: again))")
        follower.task.cancel()
        await admin.close()
        await following.close()
        await writing.close()
        try await dropSchema(of: following.postgresConfiguration)
    }

    @Test func aLostNotificationDelaysAFollowerByAtMostOnePollInterval() async throws {
        let schema = TestPostgres.uniqueSchemaName("lost")
        let name = uniqueApplicationName("lost")
        let pollInterval = Duration.seconds(2)
        let following = try await PostgresChangeFeedTests.openInstance(
            schema: schema, pollInterval: pollInterval, applicationName: name)
        let writing = try await PostgresChangeFeedTests.openInstance(schema: schema)
        let admin = try PostgresEngine(configuration: try testConfiguration("lostadmin"))
        let follower = Follower(following)
        #expect(try await Self.newListener(name, through: admin).count == 1)
        var lost: [Duration?] = []
        for number in 0..<3 {
            // The listening connection terminated, then a commit at once: from its answer, at most one poll
            // interval (plus the follower's read's own time, on a loaded machine).
            #expect(try await PostgresFaultTests.terminateListeners(name, through: admin) == 1)
            lost.append(try await follower.delay(of: "lost-\(number)", from: writing))
            _ = try await Self.newListener(name, through: admin)
        }
        #expect(lost.allSatisfy { $0.map { $0 <= pollInterval + .seconds(5) } ?? false }, "\(lost)")
        print("PostgresChangeListenerTests: with the listener terminated just before: \(lost)")
        follower.task.cancel()
        await admin.close()
        await following.close()
        await writing.close()
        try await dropSchema(of: following.postgresConfiguration)
    }
}

extension PostgresFaultTests {
    /// Ends the sessions of `applicationName` that listen for notifications; returns how many.
    static func terminateListeners(_ applicationName: String, through admin: PostgresEngine) async throws -> Int {
        try await admin.withTransaction(.write) { transaction in
            Int(
                try await transaction.scalar(
                    """
                    SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                    WHERE application_name = $1 AND query LIKE 'LISTEN %' AND pid <> pg_backend_pid()
                    """, binds(applicationName), as: Int64.self) ?? 0)
        }
    }
}
