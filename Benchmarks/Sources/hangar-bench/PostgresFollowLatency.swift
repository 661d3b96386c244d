// The PostgreSQL follower row (issue 21, `postgres-follow`): how long after a commit on one instance a follower on
// another instance has the change. Two `PostgresStore`s on one schema, each with its own pool (two instances of an
// app: a commit through one never wakes the other's followers in memory): the writer commits one save at a time,
// 10 to 40 ms apart, each stamped with the monotonic clock just before its `write`; the follower computes the delay
// when `next()` returns the change. Whatever wakes the follower (a notification, or its poll every
// `followPollInterval`) is what is measured.
import Foundation
import Hangar
import HangarPostgres
import PropertyList
import Synchronization

/// The writer's stamps (monotonic ns just before each write), by index.
private final class Stamps: Sendable {
    let times = Mutex<[Int: Int64]>([:])
}

/// Follows a fresh store on one instance while another commits `count` saves; returns each save's delay (ns).
func measurePostgresFollowLatency(server: PostgresBenchServer, count: Int) throws -> [Int64] {
    let schema = server.schema("follow")
    let follower = try openPostgresStore(server, schema: schema)
    let writer = try openPostgresStore(server, schema: schema)
    defer {
        _ = try? waitFor {
            await follower.close()
            await writer.close()
            return 0
        }
    }
    let stamps = Stamps()
    return try waitFor {
        let start = try await follower.read { try await $0.lastChangeSequence() }
        let following = Task {
            var delays: [Int64] = []
            for try await change in follower.follow(after: start, in: "follow") {
                let now = monotonicNanoseconds()
                guard let index = Int(change.key.dropFirst()), let stamp = stamps.times.withLock({ $0[index] }) else {
                    throw PostgresBenchError("a change the writer did not stamp: \(change.key)")
                }
                delays.append(now - stamp)
                if delays.count == count { break }
            }
            return delays
        }
        // The follower is reading (and listening) before the first commit.
        try await Task.sleep(for: .milliseconds(300))
        for index in 0..<count {
            try await Task.sleep(for: .milliseconds(Int.random(in: 10...40)))
            let stamp = monotonicNanoseconds()
            stamps.times.withLock { $0[index] = stamp }
            let body: PropertyList = [
                "majorVersion": 1, "minorVersion": 0, "index": .integer(.init(index)), "t": .integer(.init(stamp)),
            ]
            try await writer.write { try await $0.save(envelope: body, key: "k\(index)", in: "follow") }
        }
        return try await following.value
    }
}

/// The `postgres-follow` row's report.
func runPostgresFollowRow(server: PostgresBenchServer, quick: Bool) throws {
    let interval = StoreConfiguration().followPollInterval
    print("\n== a follower on another instance, PostgreSQL (poll every \(interval)) [postgres-follow] ==")
    let delays = try measurePostgresFollowLatency(server: server, count: quick ? 40 : 200)
    print(
        "another instance commits, 10-40 ms apart; from before write to the follower's next(): "
            + latencySummary(delays, unit: ("ms", 1_000_000)))
    fflush(nil)
}
