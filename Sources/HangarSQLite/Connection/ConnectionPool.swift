import Dispatch
import Foundation
import Hangar
import Synchronization

/// Lends a few resources (the writer's turn on a file, the reader connections) to one borrower at a time, in the
/// order they asked: to threads, which block until their turn, and to async callers, which never block a thread.
///
/// An async caller leaves a callback in the queue; whoever gives a resource back hands it straight to the first
/// waiter, calling that callback (which only enqueues work on a connection's serial queue) or waking that thread.
/// So a thousand awaiting callers hold a thousand small queue entries, and no thread at all.
final class Lender<Resource: Sendable>: Sendable {
    /// One async borrower's place: created before it asks, so a cancellation that comes first is not lost.
    final class Ticket: @unchecked Sendable {
        // Guarded by the lender's mutex.
        fileprivate var stage = Stage.fresh

        fileprivate enum Stage {
            case fresh
            case queued(@Sendable (Resource?) -> Void)
            case cancelled
            case served
        }
    }

    /// A blocked thread's place: the resource is set before the semaphore is signalled.
    private final class ThreadWaiter: @unchecked Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        var resource: Resource?
    }

    private enum Waiter {
        case thread(ThreadWaiter)
        case task(@Sendable (Resource?) -> Void)
    }

    private enum Queued {
        case thread(ThreadWaiter)
        case task(Ticket)
    }

    private struct State {
        var available: [Resource]
        var waiters = WaitQueue<Queued>()
    }

    private let state: Mutex<State>

    init(_ resources: [Resource]) {
        state = Mutex(State(available: resources))
    }

    /// How many borrowers are waiting (for tests).
    var waiting: Int {
        state.withLock { state in
            state.waiters.count { waiter in
                guard case .task(let ticket) = waiter, case .cancelled = ticket.stage else { return true }
                return false
            }
        }
    }

    // MARK: Threads

    /// Blocks this thread until a resource is free, and returns it. Give it back with ``giveBack(_:)``.
    func borrow() -> Resource {
        if let free = state.withLock({ $0.available.popLast() }) { return free }
        let waiter = ThreadWaiter()
        let free = state.withLock { state -> Resource? in
            if let resource = state.available.popLast() { return resource }
            state.waiters.append(.thread(waiter))
            return nil
        }
        if let free { return free }
        while true {
            waiter.semaphore.wait()
            if let resource = waiter.resource { return resource }
        }
    }

    /// Returns `resource`, handing it to the first waiter if there is one.
    func giveBack(_ resource: Resource) {
        let next = state.withLock { state -> Waiter? in
            while let waiter = state.waiters.takeFirst() {
                switch waiter {
                case .thread(let waiter):
                    return .thread(waiter)
                case .task(let ticket):
                    // A cancelled ticket stays in the queue until it comes first, and is skipped then.
                    guard case .queued(let callback) = ticket.stage else { continue }
                    ticket.stage = .served
                    return .task(callback)
                }
            }
            state.available.append(resource)
            return nil
        }
        switch next {
        case nil:
            break
        case .thread(let waiter):
            waiter.resource = resource
            waiter.semaphore.signal()
        case .task(let callback):
            callback(resource)
        }
    }

    // MARK: Async callers

    /// Calls `granted` with a resource as soon as one is free: at once on this thread, or later on the thread
    /// that gives one back. `granted` must not block; it is called with nil when the ticket was cancelled
    /// before its turn came.
    func borrow(_ ticket: Ticket, granted: @escaping @Sendable (Resource?) -> Void) {
        let free = state.withLock { state -> Resource?? in
            if case .cancelled = ticket.stage { return .some(nil) }
            if let resource = state.available.popLast() {
                ticket.stage = .served
                return resource
            }
            ticket.stage = .queued(granted)
            state.waiters.append(.task(ticket))
            return nil
        }
        if let free { granted(free) }
    }

    /// Takes a free resource at once, or waits for one without blocking a thread; a task cancelled while it waits
    /// gives up its place and throws `CancellationError`.
    ///
    /// A task that waited resumes on ``QueueExecutor/handOver``, never on the cooperative pool: holding the resource
    /// until a thread of that pool is free, it would stall every caller behind it, and blocking callers waiting for
    /// the resource may be holding those threads.
    func lease() async throws -> Resource {
        try Task.checkCancellation()
        if let free = state.withLock({ $0.available.popLast() }) { return free }
        return try await withTaskExecutorPreference(QueueExecutor.handOver) {
            let ticket = Ticket()
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    borrow(ticket) { resource in
                        guard let resource else { return continuation.resume(throwing: CancellationError()) }
                        continuation.resume(returning: resource)
                    }
                }
            } onCancel: {
                cancel(ticket)
            }
        }
    }

    /// Waits for a resource without blocking a thread, whatever happens to the task.
    func borrowUncancellably() async -> Resource {
        await withCheckedContinuation { continuation in
            borrow(Ticket()) { resource in
                // A fresh ticket is never cancelled, so the resource is always there.
                if let resource { continuation.resume(returning: resource) }
            }
        }
    }

    /// Takes `ticket` out of the queue, calling its callback with nil, if its turn has not come; once it has
    /// come, does nothing.
    func cancel(_ ticket: Ticket) {
        let callback = state.withLock { state -> (@Sendable (Resource?) -> Void)? in
            switch ticket.stage {
            case .fresh:
                ticket.stage = .cancelled
                return nil
            case .queued(let callback):
                ticket.stage = .cancelled
                // Left in the queue, where `giveBack` skips it: no search.
                return callback
            case .cancelled, .served:
                return nil
            }
        }
        callback?(nil)
    }
}

/// A first-in first-out queue of waiters: taking the first is O(1), the storage is compacted now and then.
struct WaitQueue<Element> {
    private var elements: [Element] = []
    /// `elements[head...]` are waiting.
    private var head = 0

    mutating func append(_ element: Element) { elements.append(element) }

    /// The first waiter, left in the queue.
    var first: Element? { head < elements.count ? elements[head] : nil }

    /// Takes the first waiter out of the queue.
    mutating func takeFirst() -> Element? {
        guard head < elements.count else { return nil }
        let element = elements[head]
        head += 1
        if head == elements.count {
            elements.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= elements.count {
            elements.removeFirst(head)
            head = 0
        }
        return element
    }

    /// How many waiters satisfy `predicate`.
    func count(where predicate: (Element) -> Bool) -> Int { elements[head...].count(where: predicate) }
}

/// A turn at writing a file.
struct WriteTurn: Sendable {}

/// One writer lock per database file in this process, shared by every store open on it.
///
/// Two stores of one process on one file would otherwise meet only at SQLite's file lock, whose busy handler
/// polls with sleeps growing to 100 ms: a store whose writers queue on their own lock takes the file lock
/// back at once after each commit, and the other store's writer can starve until its busy timeout fails it
/// with "database is locked" (seen in the concurrency stress test under load). Waiting on one lock instead,
/// the writers take turns, in the order they came. Processes still meet only at SQLite's lock.
enum WriterLocks {
    private struct FileID: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    private static let locks = Mutex<[FileID: Lender<WriteTurn>]>([:])

    /// The lock for the file at `path` (which exists: the store has opened it); a private lock if it cannot
    /// be identified.
    static func lock(for path: String) -> Lender<WriteTurn> {
        var info = stat()
        guard stat(path, &info) == 0 else { return privateLock() }
        let id = FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        return locks.withLock { locks in
            if let lock = locks[id] { return lock }
            let lock = privateLock()
            locks[id] = lock
            return lock
        }
    }

    /// A lock of its own (in-memory stores).
    static func privateLock() -> Lender<WriteTurn> { Lender([WriteTurn()]) }
}

/// Read-only connections, opened as needed up to a maximum, each lent to one reader at a time, in the order
/// readers came. Under WAL each reader sees the last commit as of its transaction's start and never blocks the
/// writer.
final class ReaderPool: Sendable {
    /// A connection (opened on first use) and the queue where async readers' transactions on it run.
    final class Slot: @unchecked Sendable {
        // Touched only by the borrower the pool lent the slot to.
        private var connection: SQLiteConnection?
        let executor: ConnectionThread

        init(index: Int) {
            executor = ConnectionThread(label: "Hangar.reader \(index)")
        }

        /// Closes the connection, if one was opened; the next use opens another (the pool refuses that once
        /// closed).
        func close() {
            connection?.close()
            connection = nil
        }

        func connection(opening open: () throws(SQLiteError) -> SQLiteConnection) throws(SQLiteError)
            -> SQLiteConnection
        {
            if let connection { return connection }
            let opened = try open()
            connection = opened
            return opened
        }
    }

    private let slots: Lender<Slot>
    private let count: Int
    private let open: @Sendable () throws(SQLiteError) -> SQLiteConnection
    /// Set by ``close()``: no connection is lent or opened afterwards.
    private let closed = Atomic<Bool>(false)

    /// The store's file, for the message of ``HangarError/closed``.
    private let path: String

    init(maximum: Int, path: String, open: @escaping @Sendable () throws(SQLiteError) -> SQLiteConnection) {
        count = max(1, maximum)
        self.path = path
        // Reversed: the pool lends the last given back first, so connections already open are reused first.
        slots = Lender((0..<count).reversed().map(Slot.init(index:)))
        self.open = open
    }

    /// Closes every connection once the reads under way end; every later read fails with
    /// ``HangarError/closed`` before reaching one. Not cancellable: the files are released.
    func close() async {
        closed.store(true, ordering: .releasing)
        let (slots, count) = (slots, count)
        await Task {
            // Holding every slot at once: the reads under way have ended.
            var held: [Slot] = []
            for _ in 0..<count { held.append(await slots.borrowUncancellably()) }
            for slot in held {
                slot.close()
                slots.giveBack(slot)
            }
        }.value
    }

    /// The slot's connection, unless the pool is closed.
    private func connection(of slot: Slot) throws -> SQLiteConnection {
        guard !closed.load(ordering: .acquiring) else { throw HangarError(.closed, "The store at \(path) is closed") }
        return try slot.connection(opening: open)
    }

    /// Runs `body` on this thread with a connection, blocking it until one is free.
    func withConnection<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        let slot = slots.borrow()
        defer { slots.giveBack(slot) }
        return try body(try connection(of: slot))
    }

    /// Runs `body` with a connection, on its queue, once one is free; no thread waits meanwhile.
    func withLeasedConnection<Result>(_ body: (SQLiteConnection) async throws -> Result) async throws -> Result {
        let slot = try await slots.lease()
        defer { slots.giveBack(slot) }
        return try await withTaskExecutorPreference(slot.executor) {
            try await body(try connection(of: slot))
        }
    }
}
