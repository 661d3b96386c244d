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
