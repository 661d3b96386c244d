import Dispatch
import Foundation
import Hangar
import Synchronization
import Testing

@testable import HangarSQLite

/// A write of a group formed on purpose.
typealias GroupedWrite = @Sendable (SQLiteWriteTransaction) throws -> Void

/// Forms a write group on purpose: the first write holds the writer (its body waits) until every other one is
/// queued behind it, in order; then all run, the others in the order they queued. With grouping on they share
/// one commit; with `GroupCommit.off` each commits on its own, in the same order.
///
/// `whileLastRuns`, when given, is called while the last write's body is held, after every other write has
/// run: what it sees is what a reader sees before the group commits.
///
/// The writes' tasks and the waits run on a queue of their own, not on the cooperative pool, which the other suites
/// of a parallel `swift test` keep busy on two cores: forming the group depends on no free thread of that pool.
func runInOneGroup(
    _ store: SQLiteStore, _ writes: [GroupedWrite], whileLastRuns: (@Sendable () async throws -> Void)? = nil
) async throws -> [Result<Void, any Error>] {
    try await withTaskExecutorPreference(groupFormerQueue) {
        try await formGroup(store, writes, whileLastRuns: whileLastRuns)
    }
}

/// Where ``runInOneGroup(_:_:whileLastRuns:)`` runs: threads of its own, however busy the cooperative pool is.
let groupFormerQueue = QueueExecutor(label: "GroupFormer")

private func formGroup(
    _ store: SQLiteStore, _ writes: [GroupedWrite], whileLastRuns: (@Sendable () async throws -> Void)?
) async throws -> [Result<Void, any Error>] {
    precondition(writes.count >= 2, "a group needs two writes")
    let firstEntered = DispatchSemaphore(value: 0)
    let releaseFirst = DispatchSemaphore(value: 0)
    let lastEntered = DispatchSemaphore(value: 0)
    let releaseLast = DispatchSemaphore(value: 0)
    let holdsLast = whileLastRuns != nil
    var tasks: [Task<Void, any Error>] = []
    let first = writes[0]
    tasks.append(
        Task(executorPreference: groupFormerQueue) {
            try await store.write { transaction in
                defer {
                    firstEntered.signal()
                    releaseFirst.wait()
                }
                try first(transaction)
            }
        })
    try await waitFor(firstEntered)
    for (index, write) in writes.dropFirst().enumerated() {
        let isLast = index == writes.count - 2
        tasks.append(
            Task(executorPreference: groupFormerQueue) {
                try await store.write { transaction in
                    if isLast && holdsLast {
                        defer {
                            lastEntered.signal()
                            releaseLast.wait()
                        }
                        try write(transaction)
                    } else {
                        try write(transaction)
                    }
                }
            })
        try await waitUntil { store.writer.waiting == index + 1 }
    }
    releaseFirst.signal()
    if let whileLastRuns {
        try await waitFor(lastEntered)
        do {
            try await whileLastRuns()
        } catch {
            releaseLast.signal()
            throw error
        }
        releaseLast.signal()
    }
    var results: [Result<Void, any Error>] = []
    for task in tasks { results.append(await task.result) }
    return results
}

/// Waits (up to 60 s: the whole suite shares two cores) for `semaphore` without blocking the task's thread.
func waitFor(_ semaphore: DispatchSemaphore) async throws {
    try await waitUntil { semaphore.wait(timeout: .now()) == .success }
}

/// Polls `condition` every millisecond, for up to 60 s.
func waitUntil(_ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out waiting")
            throw CancellationError()
        }
        try await Task.sleep(for: .milliseconds(1))
    }
}

/// The error a grouped write throws on purpose, after saving.
struct AbandonedWrite: Error {}
