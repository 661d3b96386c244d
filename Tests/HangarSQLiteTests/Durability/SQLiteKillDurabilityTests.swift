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
#elseif canImport(Darwin)
    import Darwin
#endif

/// kill -9 durability: a real child process (`hangar-stress`, Tests/Tools) writes to a real store file in a
/// loop and reports every acknowledged write; the test kills it with SIGKILL at random moments, reopens the
/// store after each kill and checks that nothing acknowledged was lost, that no transaction is half there
/// and that history is whole. `Scripts/durability.sh N` runs the same tests with N kills each.
@Suite(.serialized) struct SQLiteKillDurabilityTests {
    /// Kills per test: 60 in `swift test`, more with HANGAR_DURABILITY_KILLS.
    static let kills = ProcessInfo.processInfo.environment["HANGAR_DURABILITY_KILLS"].flatMap { Int($0) } ?? 60
    /// The random moments come from this seed (printed when a test fails, settable with HANGAR_DURABILITY_SEED).
    static let seed =
        ProcessInfo.processInfo.environment["HANGAR_DURABILITY_SEED"].flatMap { UInt64($0) }
        ?? UInt64.random(in: 1...UInt64.max)

    @Test func acknowledgedSavesSurviveKill9() throws {
        let directory = try temporaryDirectory()
        let path = directory + "/store.sqlite"
        var checker = SaveLoopChecker()
        var random = SeededGenerator(seed: Self.seed)
        var earlyKills = 0
        for cycle in 0..<Self.kills {
            // Both durability settings promise that a commit survives a crash of the program.
            let synchronous = cycle % 2 == 0 ? "full" : "normal"
            let child = try ChildProcess(
                ["save-loop", path, "c\(cycle)", "\(random.next())", synchronous],
                stderrPath: directory + "/stderr.txt")
            if random.next() % 8 == 0 {
                // Now and then while it opens the store (and SQLite recovers the WAL the last kill left).
                earlyKills += 1
                usleep(UInt32(random.next() % 30_000))
            } else {
                guard child.waitForFirstLine("ready", timeout: 60) else {
                    child.killAndWait()
                    Issue.record("cycle \(cycle) (seed \(Self.seed)): the child did not start: \(child.standardError)")
                    return
                }
                usleep(UInt32(random.next() % 100_000))
            }
            let status = child.killAndWait()
            let lines = child.completeLines()
            guard ChildProcess.wasKilled(status) else {
                Issue.record("cycle \(cycle) (seed \(Self.seed)): the child exited by itself: \(child.standardError)")
                return
            }
            try checker.record(lines)
            let problems = try checker.verify(path: path)
            guard problems.isEmpty else {
                let listed = problems.prefix(20).joined(separator: "\n")
                Issue.record("after kill \(cycle + 1) (seed \(Self.seed), synchronous \(synchronous)):\n\(listed)")
                return
            }
        }
        // The children did real work between kills, and the checks saw it.
        #expect(checker.acknowledgedWrites >= Self.kills)
        #expect(checker.multiDocumentWrites > 0)
        #expect(checker.checkedRevisions >= checker.acknowledgedSaves)
        print(
            "SQLiteKillDurabilityTests: \(Self.kills) kills (\(earlyKills) during open), seed \(Self.seed): "
                + "\(checker.acknowledgedWrites) acknowledged writes (\(checker.multiDocumentWrites) of 3 documents), "
                + "\(checker.acknowledgedSaves) acknowledged saves (checked \(checker.acknowledgementChecks) times in all), "
                + "\(checker.committedUnacknowledged) "
                + "committed but unacknowledged, \(checker.checkedRevisions) stored revisions checked")
    }

    /// Two processes writing the same file at once (their writes wait for each other on SQLite's lock, within
    /// the busy timeout), both killed at once: neither fails with "database is locked" and nothing is lost.
    @Test func twoProcessesOnOneFileSurviveKill9() throws {
        let directory = try temporaryDirectory()
        let path = directory + "/store.sqlite"
        var checker = SaveLoopChecker()
        var random = SeededGenerator(seed: Self.seed ^ 0x2)
        var acknowledgedPerProcess = [0, 0]
        let rounds = max(10, Self.kills / 6)
        for round in 0..<rounds {
            let children = try ["a", "b"].map { name in
                try ChildProcess(
                    ["save-loop", path, "p\(round)\(name)", "\(random.next())", "full"],
                    stderrPath: directory + "/stderr-\(name).txt")
            }
            for child in children where !child.waitForFirstLine("ready", timeout: 60) {
                children.forEach { $0.killAndWait() }
                Issue.record("round \(round): a child did not start: \(child.standardError)")
                return
            }
            usleep(UInt32(50_000 + random.next() % 250_000))
            for child in children { kill(child.pid, SIGKILL) }
            for (index, child) in children.enumerated() {
                let status = child.waitForExit()
                guard ChildProcess.wasKilled(status) else {
                    Issue.record("round \(round) (seed \(Self.seed)): a child failed: \(child.standardError)")
                    return
                }
                let lines = child.completeLines()
                acknowledgedPerProcess[index] += lines.count - 1
                try checker.record(lines)
            }
            let problems = try checker.verify(path: path)
            guard problems.isEmpty else {
                let listed = problems.prefix(20).joined(separator: "\n")
                Issue.record("after round \(round + 1) (seed \(Self.seed)):\n\(listed)")
                return
            }
        }
        // Both processes got their writes in.
        #expect(acknowledgedPerProcess.allSatisfy { $0 >= rounds })
        print(
            "SQLiteKillDurabilityTests: \(rounds) rounds of two processes killed together, seed \(Self.seed): "
                + "\(acknowledgedPerProcess) acknowledged writes, \(checker.acknowledgedSaves) acknowledged saves "
                + "checked, \(checker.committedUnacknowledged) committed but unacknowledged")
    }

    @Test func atomicExportLeavesTheOldOrTheNewFile() throws {
        let directory = try temporaryDirectory()
        let path = directory + "/store.sqlite"
        let exports = directory + "/exports"
        try FileManager.default.createDirectory(atPath: exports, withIntermediateDirectories: true)
        let file = exports + "/doc.plist"
        var random = SeededGenerator(seed: Self.seed ^ 0x5EED)
        var lastAcknowledged = 0
        var acknowledged = 0
        var seenRevisions = Set<Int>()
        // Temporary files a kill may have left: each kill adds at most one, and every completed export removes
        // those whose writer is gone, so after a cycle with an acknowledged export at most one is left.
        var temporaryBound = 0
        var mostTemporaryFiles = 0
        let kills = max(30, Self.kills / 2)
        for cycle in 0..<kills {
            let child = try ChildProcess(
                ["export-loop", path, file, "e\(cycle)", "\(random.next())"], stderrPath: directory + "/stderr.txt")
            guard child.waitForFirstLine("ready", timeout: 60) else {
                child.killAndWait()
                Issue.record("cycle \(cycle): the child did not start: \(child.standardError)")
                return
            }
            // Every other cycle lets one export complete first, so that exports are acknowledged however slow
            // the machine is; then a random moment, most often in the middle of the next save or export.
            if cycle % 2 == 0, !child.waitForOutput(containing: "\nexported ", timeout: 60) {
                child.killAndWait()
                Issue.record("cycle \(cycle): no export completed: \(child.standardError)")
                return
            }
            usleep(UInt32(random.next() % 250_000))
            let status = child.killAndWait()
            guard ChildProcess.wasKilled(status) else {
                Issue.record("cycle \(cycle) (seed \(Self.seed)): the child exited by itself: \(child.standardError)")
                return
            }
            var exportedThisCycle = false
            for line in child.completeLines() where line.hasPrefix("exported ") {
                exportedThisCycle = true
                let fields = line.split(separator: " ")
                let revision = try #require(Int(fields[1]))
                #expect(revision > lastAcknowledged)
                lastAcknowledged = revision
                acknowledged += 1
            }
            temporaryBound = exportedThisCycle ? 1 : temporaryBound + 1
            let temporaries = try FileManager.default.contentsOfDirectory(atPath: exports).filter { $0 != "doc.plist" }
            #expect(temporaries.allSatisfy { $0.hasPrefix(".doc.plist.hangar-") }, "unexpected files: \(temporaries)")
            #expect(
                temporaries.count <= temporaryBound, "after kill \(cycle + 1): \(temporaries.count) temporary files")
            mostTemporaryFiles = max(mostTemporaryFiles, temporaries.count)
            // The file is absent only if no export was ever acknowledged; otherwise it is one whole export.
            guard FileManager.default.fileExists(atPath: file) else {
                #expect(lastAcknowledged == 0, "after kill \(cycle + 1) the exported file is gone")
                continue
            }
            let bytes = try AtomicFile.contents(of: file)
            let content = try #require(
                try? PropertyList(binary: bytes).dictionaryValue, "after kill \(cycle + 1): a partial or corrupt file")
            let revision = try #require(content["revision"]?.integerValue?.int64Value).asInt
            let size = try #require(content["size"]?.integerValue?.int64Value).asInt
            #expect(content["payload"]?.dataValue?.count == size, "after kill \(cycle + 1): a torn payload")
            #expect(revision >= lastAcknowledged, "after kill \(cycle + 1): an older file than the last acknowledged")
            seenRevisions.insert(revision)
            let store = try SQLiteStore(path: path, store: stressConfiguration())
            #expect(try store.checkIntegrity() == ["ok"])
            // The file is byte for byte the stored revision it claims to be (while the store keeps it).
            if let stored = try store.read({ try $0.document(in: "exports", key: "doc", revision: revision) }) {
                #expect(stored.body == bytes, "after kill \(cycle + 1): the file differs from revision \(revision)")
            } else {
                let current = try store.read { try $0.document(in: "exports", key: "doc")?.revision } ?? 0
                #expect(current > revision + 3, "after kill \(cycle + 1): revision \(revision) was never stored")
            }
        }
        #expect(acknowledged >= kills / 2)
        #expect(seenRevisions.count >= kills / 2)
        print(
            "SQLiteKillDurabilityTests: \(kills) export kills, seed \(Self.seed): \(acknowledged) acknowledged exports, "
                + "\(seenRevisions.count) distinct files found whole, at most \(mostTemporaryFiles) temporary files left "
                + "behind at once")
    }
}

extension Int64 {
    fileprivate var asInt: Int { Int(self) }
}

extension SaveLoopChecker {
    /// Opens the store as a new process would after the crash and returns every problem found.
    mutating func verify(path: String) throws -> [String] {
        let store = try SQLiteStore(path: path, store: stressConfiguration())
        let integrity = try store.checkIntegrity()
        // Everything, read in one transaction: every kept revision of every document.
        let snapshot = try store.read { transaction in
            var snapshot = Snapshot()
            for collection in Self.kept.keys {
                for key in try transaction.keys(in: collection) {
                    let kept = try transaction.history(in: collection, key: key)
                    for info in kept {
                        let stored = try transaction.document(in: collection, key: key, revision: info.revision)
                        snapshot.add(collection: collection, key: key, info: info, body: stored?.body)
                    }
                }
            }
            return snapshot
        }
        let problems = verify(snapshot)
        return integrity == ["ok"] ? problems : ["integrity_check: \(integrity)"] + problems
    }
}
