import Hangar
import Synchronization

/// Numbers the changes this store's single writes (``PostgresStore/save(envelope:key:in:expectedRevision:)``) left
/// pending, off the writers' path: a write whose statement found the numbering lock taken asks for a numbering and
/// returns (its change is committed), and one numbering serves every write that asked before it began.
///
/// A read of this store waits for the numberings its earlier writes asked for (``settled()``), so whoever wrote
/// finds the change in the feed, as after a transaction. Other instances see it once it is numbered: this
/// numbering notifies them, and their followers number what they find pending anyway. A numbering that fails is
/// logged; the next numbering by any writer or follower takes the change then, as after a lost connection.
final class PendingChangeNumberer: Sendable {
    private let engine: PostgresEngine
    /// Numberings asked for, and those ended: every change committed before the `requested`-th request is numbered
    /// once `completed` reaches it. Both only grow.
    private let requested = Atomic<Int>(0)
    private let completed = Atomic<Int>(0)
    private let state = Mutex(State())
    /// Rung after each numbering: this store's followers read again.
    private let numbered: @Sendable () -> Void

    private struct State {
        var running = false
        /// Reads waiting for the request they saw to end.
        var waiters: [(request: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    init(engine: PostgresEngine, numbered: @escaping @Sendable () -> Void) {
        self.engine = engine
        self.numbered = numbered
    }

    /// Asks for a numbering of every change committed so far, and returns at once.
    func requestNumbering() {
        requested.add(1, ordering: .sequentiallyConsistent)
        let start = state.withLock { state -> Bool in
            guard !state.running else { return false }
            state.running = true
            return true
        }
        if start { Task { await self.numberWhileRequested() } }
    }

    /// Returns once every numbering asked for before this call has ended (at once when none is outstanding).
    func settled() async {
        let request = requested.load(ordering: .sequentiallyConsistent)
        guard completed.load(ordering: .sequentiallyConsistent) < request else { return }
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if completed.load(ordering: .sequentiallyConsistent) >= request { return true }
                state.waiters.append((request, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Numbers until no request is left that began before the last numbering.
    private func numberWhileRequested() async {
        while true {
            let target = requested.load(ordering: .sequentiallyConsistent)
            _ = await engine.numberPendingChanges()
            numbered()
            let (ready, more) = state.withLock { state -> ([CheckedContinuation<Void, Never>], Bool) in
                completed.store(target, ordering: .sequentiallyConsistent)
                let ready = state.waiters.filter { $0.request <= target }.map(\.continuation)
                state.waiters.removeAll { $0.request <= target }
                // A request that came after `target` was read needs a numbering that starts after it.
                let more = requested.load(ordering: .sequentiallyConsistent) != target
                state.running = more
                return (ready, more)
            }
            for continuation in ready { continuation.resume() }
            guard more else { return }
        }
    }
}
