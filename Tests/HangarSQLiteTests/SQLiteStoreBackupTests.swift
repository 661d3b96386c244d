import Foundation
import Hangar
import HangarSQLite
import HangarTestSupport
import PropertyList
import Testing

/// `backup` copies a step at a time, writers committing between steps; the copy is one committed state.
@Suite struct SQLiteStoreBackupTests {
    static let bigDocuments = 1_000

    /// The writer writes through the store backing up (its pages are copied as they are written), or through
    /// another store on the file (each commit makes the copy start over, until it is done in one step).
    @Test(arguments: [false, true])
    func writersCommitWhileABackupCopiesAndTheCopyIsOneCommittedState(throughAnotherStore: Bool) throws {
        let directory = try temporaryDirectory()
        let store = try SQLiteStore(path: directory + "/store.sqlite", store: noteConfiguration())
        let writing =
            throughAnotherStore
            ? try SQLiteStore(path: directory + "/store.sqlite", store: noteConfiguration()) : store
        // About 20 MB: twenty steps of the backup.
        let big = String(repeating: "0123456789abcdef", count: 1_250)
        try store.write { transaction in
            for index in 0..<Self.bigDocuments {
                try transaction.save(Note(title: "big\(index)", body: big), key: "big\(index)")
            }
        }
        // A writer adding tick i, then recording when it committed, until told to stop.
        let log = CommitLog()
        let writerDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var tick = 0
            while !log.stopped {
                log.attempting()
                do {
                    try writing.write { try $0.save(Note(title: "t", body: "\(tick)"), key: "tick\(tick)") }
                    log.committed(tick)
                    tick += 1
                } catch {
                    log.failed("\(error)")
                    break
                }
            }
            writerDone.signal()
        }
        while log.count < 3 { usleep(1_000) }

        let started = Date()
        let committedBefore = log.count
        try store.backup(to: directory + "/copy.sqlite")
        let finished = Date()
        // A tick being committed as the backup ends may be in the copy, not yet counted as committed.
        let attemptedAfter = log.attempts
        log.stop()
        writerDone.wait()
        #expect(log.failures.isEmpty, "\(log.failures)")

        // Commits landed all through the backup, not only before and after it: the longest time without one
        // is a small part of it (when the backup held the writer for its whole copy, that was most of it).
        let duration = finished.timeIntervalSince(started)
        let marks = [started] + log.times.filter { $0 > started && $0 < finished } + [finished]
        let longestWait = zip(marks, marks.dropFirst()).map { $1.timeIntervalSince($0) }.max() ?? duration
        print(
            "SQLiteStoreBackupTests: \(marks.count - 2) commits during a backup of \(duration) s, at most \(longestWait) s apart"
        )
        #expect(marks.count - 2 >= (throughAnotherStore ? 3 : 5))
        // Restarted by every commit of the other store, the copy must still end (it took 18 to 31 s, and
        // tens of thousands of restarts, when restarts were not counted).
        #expect(duration < 5)
        #expect(
            throughAnotherStore || longestWait < duration / 2,
            "\(marks.count - 2) commits, \(longestWait) s of \(duration) s")

        // The copy is sound, and is one committed state: all the big documents, and ticks 0..<k for a k the
        // writer had reached at some point during the backup.
        let copy = try SQLiteStore(path: directory + "/copy.sqlite", store: noteConfiguration())
        #expect(try copy.checkIntegrity() == ["ok"])
        let keys = try copy.read { try $0.keys(in: "notes") }
        let ticks = keys.filter { $0.hasPrefix("tick") }
        #expect(keys.count - ticks.count == Self.bigDocuments)
        #expect((committedBefore...attemptedAfter).contains(ticks.count), "\(ticks.count) ticks in the copy")
        #expect(Set(ticks) == Set((0..<ticks.count).map { "tick\($0)" }))
        let bodies = try copy.read { transaction in
            try (0..<ticks.count).map { try transaction.load(Note.self, key: "tick\($0)")?.value.body }
        }
        #expect(bodies == (0..<ticks.count).map { "\($0)" })
    }

    @Test func aBackupOfAnInMemoryStore() throws {
        let directory = try temporaryDirectory()
        let store = try SQLiteStore.inMemory(store: noteConfiguration())
        try store.write { transaction in
            for index in 0..<500 {
                try transaction.save(Note(title: "n", body: String(repeating: "x", count: 4_000)), key: "n\(index)")
            }
        }
        try store.backup(to: directory + "/copy.sqlite")
        let copy = try SQLiteStore(path: directory + "/copy.sqlite")
        #expect(try copy.checkIntegrity() == ["ok"])
        #expect(try copy.read { try $0.count(in: "notes") } == 500)
    }
}

/// Where a store's database cannot use a write-ahead log, opening it fails with a clear error.
@Suite struct SQLiteStoreJournalModeTests {
    @Test(arguments: ["", "file::memory:", "file:hangar-journal-test?mode=memory&cache=shared"])
    func aDatabaseWithoutAWriteAheadLogIsRefused(path: String) {
        #expect {
            _ = try SQLiteStore(path: path)
        } throws: { error in
            guard case HangarError.unsupportedFileSystem = error else { return false }
            return "\(error)".contains("cannot use a write-ahead log")
                && "\(error)".contains("SQLite's journal mode is")
        }
    }

    @Test func inMemoryStoresStillOpen() throws {
        let store = try SQLiteStore.inMemory()
        try store.write { try $0.save(envelope: ["majorVersion": 1, "minorVersion": 0], key: "k", in: "c") }
        #expect(try store.read { try $0.count(in: "c") } == 1)
    }
}

/// Commit times from the writer thread.
private final class CommitLog: @unchecked Sendable {
    private let lock = NSLock()
    private var commitTimes: [Date] = []
    private var errors: [String] = []
    private var stopRequested = false
    private var attempted = 0

    func committed(_ tick: Int) { lock.withLock { commitTimes.append(Date()) } }
    func attempting() { lock.withLock { attempted += 1 } }
    var attempts: Int { lock.withLock { attempted } }
    func failed(_ error: String) { lock.withLock { errors.append(error) } }
    func stop() { lock.withLock { stopRequested = true } }
    var stopped: Bool { lock.withLock { stopRequested } }
    var count: Int { lock.withLock { commitTimes.count } }
    var times: [Date] { lock.withLock { commitTimes } }
    var failures: [String] { lock.withLock { errors } }
}
