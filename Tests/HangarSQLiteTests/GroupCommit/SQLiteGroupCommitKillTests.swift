import Foundation
import Hangar
import HangarSQLite
import HangarTestSupport
import PropertyList
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// kill -9 while sixteen writers in one process share commits (`hangar-stress save-loop … 16`): after every
/// kill, each write that returned is in the store byte for byte, no write is half there, and the change feed
/// holds each returned write's changes exactly once, one transaction per write, in one order.
@Suite(.serialized) struct SQLiteGroupCommitKillTests {
    static let kills = max(8, SQLiteKillDurabilityTests.kills / 4)

    @Test func sixteenWritersSharingCommitsSurviveKill9() throws {
        let directory = try temporaryDirectory()
        let path = directory + "/store.sqlite"
        var checker = SaveLoopChecker()
        var random = SeededGenerator(seed: SQLiteKillDurabilityTests.seed ^ 0x16)
        // Acknowledged writes of the odd writers, which use the single-write API (`store.save`).
        var singleWrites = 0
        for cycle in 0..<Self.kills {
            let child = try ChildProcess(
                ["save-loop", path, "g\(cycle)", "\(random.next())", "full", "16"],
                stderrPath: directory + "/stderr.txt")
            guard child.waitForFirstLine("ready", timeout: 60) else {
                child.killAndWait()
                Issue.record("cycle \(cycle): the child did not start: \(child.standardError)")
                return
            }
            usleep(UInt32(100_000 + random.next() % 300_000))
            let status = child.killAndWait()
            guard ChildProcess.wasKilled(status) else {
                Issue.record("cycle \(cycle): the child exited by itself: \(child.standardError)")
                return
            }
            let lines = child.completeLines()
            singleWrites += lines.count(where: Self.isSingleWrite)
            try checker.record(lines)
            let problems = try checker.verify(path: path) + (try Self.feedProblems(path: path, checker: checker))
            guard problems.isEmpty else {
                let listed = problems.prefix(20).joined(separator: "\n")
                Issue.record("after kill \(cycle + 1):\n\(listed)")
                return
            }
        }
        #expect(checker.acknowledgedWrites >= Self.kills * 16)
        #expect(singleWrites >= Self.kills)
        print(
            "SQLiteGroupCommitKillTests: \(Self.kills) kills of 16 writers: \(checker.acknowledgedWrites) "
                + "acknowledged writes (\(singleWrites) single writes), \(checker.committedUnacknowledged) "
                + "committed but unacknowledged")
    }

    /// Whether `line` acknowledges a write of an odd writer (`ack RUNwN-SEQUENCE …`, N odd).
    static func isSingleWrite(_ line: String) -> Bool {
        let fields = line.split(separator: " ")
        guard fields.count > 1, fields[0] == "ack", let w = fields[1].lastIndex(of: "w"),
            let dash = fields[1][w...].firstIndex(of: "-"),
            let writer = Int(fields[1][fields[1].index(after: w)..<dash])
        else { return false }
        return writer % 2 == 1
    }

    /// The feed after a crash: every acknowledged save once, the changes of one write under one transaction
    /// number and contiguous, sequences without gaps.
    static func feedProblems(path: String, checker: SaveLoopChecker) throws -> [String] {
        let store = try SQLiteStore(path: path, store: stressConfiguration())
        let changes = try store.read { try $0.changes(since: 0) }
        var problems: [String] = []
        if changes.map(\.sequence)
            != Array((changes.first?.sequence ?? 1)..<((changes.first?.sequence ?? 1) + changes.count))
        {
            problems.append("the feed's sequences have gaps")
        }
        var seen: [SaveLoopChecker.Revision: Int] = [:]
        for change in changes {
            seen[
                SaveLoopChecker.Revision(collection: change.collection, key: change.key, revision: change.revision),
                default: 0] += 1
        }
        for revision in checker.acknowledged.keys where seen[revision] != 1 {
            problems.append("\(revision.name): \(seen[revision] ?? 0) changes in the feed, not 1")
        }
        // A transaction's changes are contiguous: once another transaction starts, it never comes back.
        var finished: Set<Int> = []
        var current: Int?
        for change in changes where change.transaction != current {
            if let current { finished.insert(current) }
            if finished.contains(change.transaction) {
                problems.append("transaction \(change.transaction) is split in the feed")
            }
            current = change.transaction
        }
        return problems
    }
}
