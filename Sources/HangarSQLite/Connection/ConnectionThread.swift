import Dispatch
import Foundation
import Synchronization

/// Runs the jobs of the tasks that prefer it (`withTaskExecutorPreference`) one at a time on a thread of its own:
/// a connection's transactions, and whatever nonisolated code their bodies await, run there, never on the
/// cooperative pool, which SQLite's blocking calls would starve.
///
/// The thread has a stack of ``stackSize``, whatever the process's limit: a document may nest 512 containers, and
/// the codecs, the write rules and an app's models recurse once or more a level (about 15 KiB a level in a debug
/// build's binary decoder: 7.7 MiB at 511 levels, more than the 2 to 8 MiB a thread gets by default). The thread
/// starts with the first job and ends once the executor is released.
final class ConnectionThread: TaskExecutor, @unchecked Sendable {
    /// The stack of every connection thread: room for 512 levels several times over. Only the pages touched are
    /// memory; the rest is address space.
    static let stackSize = 64 << 20

    private let label: String
    private let work = WorkQueue()
    private let started = Atomic<Bool>(false)

    init(label: String) {
        self.label = label
    }

    deinit {
        work.stop()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // Held by its pending jobs: the executor outlives every job it was given.
        push { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
    }

    /// Runs `work` on the thread, after what is already there.
    func run(_ work: @escaping @Sendable () -> Void) {
        push(work)
    }

    private func push(_ item: @escaping @Sendable () -> Void) {
        work.push(item)
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // The thread holds the queue, not the executor, so releasing the executor ends it.
        let thread = Thread { [work] in work.drain() }
        thread.stackSize = Self.stackSize
        thread.name = label
        thread.start()
    }

    /// The jobs waiting for the thread, and the signal that wakes it.
    private final class WorkQueue: Sendable {
        private struct State {
            var items: [@Sendable () -> Void] = []
            var stopped = false
        }

        private let state = Mutex(State())
        private let wake = DispatchSemaphore(value: 0)

        func push(_ item: @escaping @Sendable () -> Void) {
            state.withLock { $0.items.append(item) }
            wake.signal()
        }

        func stop() {
            state.withLock { $0.stopped = true }
            wake.signal()
        }

        /// Runs the items in order as they come, until stopped with none left.
        func drain() {
            while true {
                wake.wait()
                let batch = state.withLock { state -> [@Sendable () -> Void]? in
                    if state.items.isEmpty { return state.stopped ? nil : [] }
                    defer { state.items.removeAll(keepingCapacity: true) }
                    return state.items
                }
                guard let batch else { return }
                for item in batch { item() }
            }
        }
    }
}

/// A concurrent dispatch queue as a task executor, for work that only moves on to another executor.
final class QueueExecutor: TaskExecutor {
    /// Where a task that waited for a resource of a ``Lender`` resumes (``Lender/lease(group:)``).
    static let handOver = QueueExecutor(label: "Hangar.handover")

    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, attributes: .concurrent)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
    }
}
