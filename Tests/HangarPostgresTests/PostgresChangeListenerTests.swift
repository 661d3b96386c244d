import Foundation
import Hangar
import HangarTestSupport
import PostgresNIO
import PropertyList
import Testing

@testable import HangarPostgres

/// `LISTEN`/`NOTIFY` as the followers' bell across instances: a commit on one instance wakes a follower on
/// another long before its poll; with the listening connection terminated, the follower still has the change
/// within one poll interval, and the channel is listened to again on a new connection.
@Suite(.enabled(if: TestPostgres.shouldRun)) struct PostgresChangeListenerTests {
    /// The follower's poll interval here: long, so that a change seen well before it was rung for.
    static let pollInterval = Duration.seconds(4)

    /// The backend pids listening on `channel`'s connections of `applicationName`.
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

    /// Saves `key` through `writer` and returns how long `iterator` (a follower of another instance) took to
    /// yield it, measured from just before the write.
    static func delay(
        of key: String, from writer: PostgresStore, to iterator: inout ChangeFeed.Iterator
    ) async throws -> Duration {
        let start = ContinuousClock.now
        try await writer.write {
            try await $0.save(envelope: PostgresChangeFeedTests.note(key, 0), key: key, in: "ledger")
        }
        while let change = try await iterator.next() {
            if change.key == key { return ContinuousClock.now - start }
        }
        throw HangarError(.database, "the feed ended")
    }

    @Test func aLostNotificationDelaysAFollowerByAtMostOnePollInterval() async throws {
        let schema = TestPostgres.uniqueSchemaName("listen")
        let name = uniqueApplicationName("listen")
        let following = try await PostgresChangeFeedTests.openInstance(
            schema: schema, pollInterval: Self.pollInterval, applicationName: name)
        let writing = try await PostgresChangeFeedTests.openInstance(schema: schema)
        let admin = try PostgresEngine(configuration: try testConfiguration("listenadmin"))
        var iterator = following.follow(after: 0).makeAsyncIterator()
        // Listening before the first measure: the listener starts with the feed.
        var listening: [Int32] = []
        for _ in 0..<500 where listening.isEmpty {
            try await Task.sleep(for: .milliseconds(10))
            listening = try await Self.listeners(name, through: admin)
        }
        #expect(listening.count == 1)

        // Rung: well within the poll interval, each time.
        var rung: [Duration] = []
        for number in 0..<5 { rung.append(try await Self.delay(of: "rung-\(number)", from: writing, to: &iterator)) }
        #expect(rung.allSatisfy { $0 < Self.pollInterval / 2 }, "\(rung)")

        // The listening connection terminated, then a commit at once: at most one poll interval (plus the
        // commit's and the read's own time).
        let terminated = try await PostgresFaultTests.terminateListeners(name, through: admin)
        #expect(terminated == 1)
        let lost = try await Self.delay(of: "lost", from: writing, to: &iterator)
        #expect(lost <= Self.pollInterval + .seconds(2), "\(lost)")

        // Listening again, on a new connection, and rung again.
        var again: [Int32] = []
        for _ in 0..<500 where again.isEmpty || again == listening {
            try await Task.sleep(for: .milliseconds(10))
            again = try await Self.listeners(name, through: admin)
        }
        #expect(again.count == 1 && again != listening)
        let afterwards = try await Self.delay(of: "again", from: writing, to: &iterator)
        #expect(afterwards < Self.pollInterval / 2, "\(afterwards)")
        print("PostgresChangeListenerTests: rung \(rung), lost \(lost), rung again \(afterwards)")

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
