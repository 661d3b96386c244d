import Foundation
import Hangar
import HangarSQLite
import PropertyList

// The concurrent single-save rows (issue 29): sixteen writers at once, one save per `write`, synchronous FULL,
// against raw SQLite doing the same saves one transaction each (the way hand-written code commits a save): with
// group commit the writers queued behind a commit share the next one, so the store pays about one flush for many
// saves. The same store with grouping off shows what the sharing is worth.

/// How many writers the concurrent rows run at once.
let concurrentWriters = 16

/// Sixteen writers on threads of their own, each saving its share of the documents one `write` at a time.
func concurrentSaveContenders(_ data: StoreData) throws -> [StoreContender] {
    let keys = data.keys
    let envelopes = data.envelopes
    let collection = Pilot.collection
    let count = data.plan.singleSaves
    var list: [StoreContender] = []
    // The default (only writes already queued join), a tiny window (the last write of a group waits 0.2 ms for
    // more), and no sharing.
    let policies: [(String, String, SQLiteStoreConfiguration.GroupCommit)] = [
        ("grouped", "grouped", .init()), ("grouped, 0.2 ms window", "window", .init(window: .microseconds(200))),
        ("each alone", "alone", .off),
    ]
    for (label, file, policy) in policies {
        var configuration = storeConfiguration(synchronous: .full)
        configuration.groupCommit = policy
        let (store, prepareStore) = data.freshStore("concurrent-\(file)", configuration)
        list.append(
            StoreContender(
                contender: Contender(
                    name: "Hangar, \(concurrentWriters) writers, \(label) FULL", isOurs: true,
                    run: {
                        guard let store = store.value else { throw SetupError(description: "store not prepared") }
                        try onThreads(concurrentWriters) { writer in
                            for index in stride(from: writer, to: count, by: concurrentWriters) {
                                try store.write {
                                    try $0.save(envelope: envelopes[index], key: keys[index], in: collection)
                                }
                            }
                        }
                        return count
                    }, prepare: prepareStore),
                baseline: "SQLite + encode, 1/txn FULL (one writer)"))
    }
    // What the server's PUT does: single writes (`store.save(envelope:)`) from sixteen tasks, each run by whoever
    // holds the writer's turn when its place comes.
    let (asyncStore, prepareAsyncStore) = data.freshStore("concurrent-tasks", storeConfiguration(synchronous: .full))
    list.append(
        StoreContender(
            contender: Contender(
                name: "Hangar, \(concurrentWriters) tasks, store.save FULL", isOurs: true,
                run: {
                    guard let store = asyncStore.value else { throw SetupError(description: "store not prepared") }
                    try waitForTasks(concurrentWriters) { writer in
                        for index in stride(from: writer, to: count, by: concurrentWriters) {
                            try await store.save(envelope: envelopes[index], key: keys[index], in: collection)
                        }
                    }
                    return count
                }, prepare: prepareAsyncStore),
            baseline: "SQLite + encode, 1/txn FULL (one writer)"))
    let (raw, prepareRaw) = data.freshRaw("concurrent-raw", synchronous: "FULL")
    list.append(
        StoreContender(
            contender: Contender(
                name: "SQLite + encode, 1/txn FULL (one writer)", isOurs: false,
                run: {
                    guard let (database, insert) = raw.value else { throw SetupError(description: "raw not prepared") }
                    return try rawSavesOneTransactionEach(
                        database, insert, keys: keys, envelopes: envelopes, count: count)
                }, prepare: prepareRaw)))
    return list
}

/// Runs `body(0..<count)` in `count` tasks at once, blocking this thread until all have ended; rethrows the first
/// error.
func waitForTasks(_ count: Int, _ body: @escaping @Sendable (Int) async throws -> Void) throws {
    let done = DispatchSemaphore(value: 0)
    let failures = FailureBox()
    Task {
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask {
                    do {
                        try await body(index)
                    } catch {
                        failures.record(error)
                    }
                }
            }
        }
        done.signal()
    }
    done.wait()
    if let failure = failures.first { throw failure }
}

/// Runs `body(0..<count)` on `count` threads at once and returns when all have; rethrows the first error.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) throws {
    let done = DispatchSemaphore(value: 0)
    let failures = FailureBox()
    for index in 0..<count {
        Thread.detachNewThread {
            do {
                try body(index)
            } catch {
                failures.record(error)
            }
            done.signal()
        }
    }
    for _ in 0..<count { done.wait() }
    if let failure = failures.first { throw failure }
}

/// The first error of the threads of ``onThreads(_:_:)``.
final class FailureBox: @unchecked Sendable {
    private let lock = NSLock()
    private var failure: (any Error)?

    func record(_ error: any Error) {
        lock.lock()
        defer { lock.unlock() }
        if failure == nil { failure = error }
    }

    var first: (any Error)? {
        lock.lock()
        defer { lock.unlock() }
        return failure
    }
}
