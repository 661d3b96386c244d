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
        /// The write group this borrower may join (``handOff(_:toGroup:)``), if any.
        fileprivate let group: ObjectIdentifier?
        /// A write of that group that whoever hands the turn on runs itself, instead of waking this borrower. Set
        /// before the ticket is borrowed with, never after.
        var inlineWrite: InlineWrite?
        // Guarded by the lender's mutex.
        fileprivate var stage = Stage.fresh

        init(group: ObjectIdentifier? = nil) {
            self.group = group
        }

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
        let group: ObjectIdentifier?
        var resource: Resource?

        init(group: ObjectIdentifier?) {
            self.group = group
        }
    }

    private enum Waiter {
        case thread(ThreadWaiter)
        case task(Ticket)
    }

    private struct State {
        var available: [Resource]
        var waiters: [Waiter] = []
        /// `waiters[head...]` are waiting: taking the first is O(1), the array is compacted now and then.
        var head = 0

        mutating func takeFirstWaiter() -> Waiter? {
            guard head < waiters.count else { return nil }
            let waiter = waiters[head]
            head += 1
            if head == waiters.count {
                waiters.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64 && head * 2 >= waiters.count {
                waiters.removeFirst(head)
                head = 0
            }
            return waiter
        }
    }

    private let state: Mutex<State>

    init(_ resources: [Resource]) {
        state = Mutex(State(available: resources))
    }

    /// How many borrowers are waiting (for tests).
    var waiting: Int {
        state.withLock { state in
            state.waiters[state.head...].count { waiter in
                guard case .task(let ticket) = waiter, case .cancelled = ticket.stage else { return true }
                return false
            }
        }
    }

    // MARK: Threads

    /// Blocks this thread until a resource is free, and returns it. Give it back with ``giveBack(_:)``. A
    /// borrower that names a `group` may be handed the resource by ``handOff(_:toGroup:)``.
    func borrow(group: ObjectIdentifier? = nil) -> Resource {
        if let free = state.withLock({ $0.available.popLast() }) { return free }
        let waiter = ThreadWaiter(group: group)
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
        let next = state.withLock { state -> Handoff? in
            while let waiter = state.takeFirstWaiter() {
                switch waiter {
                case .thread(let waiter):
                    return .thread(waiter)
                case .task(let ticket):
                    // A cancelled ticket stays in the array until it comes first, and is skipped then.
                    guard case .queued(let callback) = ticket.stage else { continue }
                    ticket.stage = .served
                    return .task(callback)
                }
            }
            state.available.append(resource)
            return nil
        }
        if let next { deliver(resource, to: next) }
    }

    /// What ``handOff(_:toGroup:)`` did with the resource.
    enum GroupHandOff {
        /// The first waiter, of the group, has it now.
        case handedOff
        /// The first waiter is a write of the group to run by the caller, who keeps the resource.
        case runHere(InlineWrite)
        /// The first waiter (if any) is not of the group: the caller keeps the resource.
        case kept
    }

    /// Hands `resource` to the first waiter if that one borrowed for `group` (cancelled tickets ahead of it are
    /// dropped), or gives the caller that waiter's ``InlineWrite`` to run; otherwise the caller keeps the resource.
    /// Atomic: a waiter that comes after the check waits for the resource to be given back.
    func handOff(_ resource: Resource, toGroup group: ObjectIdentifier) -> GroupHandOff {
        let next = state.withLock { state -> GroupWaiter? in
            while state.head < state.waiters.count {
                switch state.waiters[state.head] {
                case .thread(let waiter):
                    guard waiter.group == group else { return nil }
                    _ = state.takeFirstWaiter()
                    return .wake(.thread(waiter))
                case .task(let ticket):
                    guard case .queued(let callback) = ticket.stage else {
                        _ = state.takeFirstWaiter()
                        continue
                    }
                    guard ticket.group == group else { return nil }
                    _ = state.takeFirstWaiter()
                    ticket.stage = .served
                    if let write = ticket.inlineWrite { return .inline(write) }
                    return .wake(.task(callback))
                }
            }
            return nil
        }
        switch next {
        case nil: return .kept
        case .inline(let write): return .runHere(write)
        case .wake(let waiter):
            deliver(resource, to: waiter)
            return .handedOff
        }
    }

    /// The first waiter of a group: one to wake, or an inline write.
    private enum GroupWaiter {
        case wake(Handoff)
        case inline(InlineWrite)
    }

    private func deliver(_ resource: Resource, to next: Handoff) {
        switch next {
        case .thread(let waiter):
            waiter.resource = resource
            waiter.semaphore.signal()
        case .task(let callback):
            callback(resource)
        }
    }

    private enum Handoff {
        case thread(ThreadWaiter)
        case task(@Sendable (Resource?) -> Void)
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
    /// the resource may be holding those threads (two of them stop every async writer on two cores: seen as
    /// timeouts of the group-commit tests in a parallel `swift test`).
    func lease(group: ObjectIdentifier? = nil) async throws -> Resource {
        try Task.checkCancellation()
        if let free = state.withLock({ $0.available.popLast() }) { return free }
        return try await withTaskExecutorPreference(QueueExecutor.handOver) {
            try await borrow(group: group) { resource, continuation in continuation.resume(returning: resource) }
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
                // Left in the array, where `giveBack` skips it: no search.
                return callback
            case .cancelled, .served:
                return nil
            }
        }
        callback?(nil)
    }

    /// Waits for a resource without blocking a thread, then calls `work` with it (on the thread that gave it,
    /// which `work` must not hold: it should enqueue its work on a queue) and a continuation `work` resumes.
    ///
    /// A task cancelled while it waits gives up its place and throws `CancellationError`; once its turn has
    /// come, `work` runs whatever happens to the task.
    func borrow<Result: Sendable>(
        group: ObjectIdentifier? = nil,
        then work: @escaping @Sendable (Resource, CheckedContinuation<Result, any Error>) -> Void
    ) async throws -> Result {
        let ticket = Ticket(group: group)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                borrow(ticket) { resource in
                    guard let resource else { return continuation.resume(throwing: CancellationError()) }
                    work(resource, continuation)
                }
            }
        } onCancel: {
            cancel(ticket)
        }
    }
}

/// The store's writer: one connection, with the writer lock of its file and a serial queue where async writes run.
final class SerializedConnection: @unchecked Sendable {
    let lock: Lender<WriteTurn>
    let connection: SQLiteConnection
    /// Where async callers' transactions run, one at a time, once the lock is theirs.
    let executor: ConnectionThread
    /// The write group whose transaction is open on the connection (``withGroupedWrite(_:afterCommit:_:)``);
    /// touched only by the borrower whose turn it is.
    var openGroup: WriteGroup?

    /// `lock` is shared by the writers of every store of this process open on the same file (``WriterLocks``).
    init(_ connection: SQLiteConnection, lock: Lender<WriteTurn> = WriterLocks.privateLock(), label: String) {
        self.connection = connection
        self.lock = lock
        executor = ConnectionThread(label: "Hangar.writer " + label)
    }

    /// Identifies the lock: equal for the writers of all stores of this process on one file.
    var lockID: ObjectIdentifier { ObjectIdentifier(lock) }

    /// Runs `body` with the connection on this thread, blocking it until the lock is free.
    func withConnection<Result, Failure: Error>(_ body: (SQLiteConnection) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        let turn = lock.borrow()
        defer { lock.giveBack(turn) }
        return try body(connection)
    }

    /// Closes the connection once the writes under way (and any waiting before this call) are done; the store
    /// refuses every later one before it reaches the connection. Not cancellable: the files are released.
    func close() async {
        await Task { [self] in
            let turn = await lock.borrowUncancellably()
            connection.close()
            lock.giveBack(turn)
        }.value
    }

    /// Runs `body` with the connection once the lock is this caller's turn, on the writer's queue (off the
    /// cooperative pool: SQLite blocks); no thread waits for the lock meanwhile.
    func withLeasedConnection<Result>(_ body: (SQLiteConnection) async throws -> Result) async throws -> Result {
        let turn = try await lock.lease()
        defer { lock.giveBack(turn) }
        return try await withTaskExecutorPreference(executor) { try await body(connection) }
    }
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
