import Foundation
import Synchronization

/// Wakes the followers of a store when it commits changes; they also wake after a timeout, to see commits
/// made through other connections.
package final class ChangeSignal: Sendable {
    private struct State {
        var generation = 0
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    /// Counts the signals given.
    package var generation: Int { state.withLock { $0.generation } }

    /// Wakes every waiter.
    package func signal() {
        let waiters = state.withLock { state in
            state.generation += 1
            let waiters = state.waiters
            state.waiters = [:]
            return waiters
        }
        for waiter in waiters.values { waiter.resume() }
    }

    /// Returns after the next signal (at once if one came since `generation`), after `timeout`, or once the
    /// task is cancelled.
    package func wait(after generation: Int, timeout: Duration) async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    guard state.generation == generation, !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now {
                    continuation.resume()
                } else {
                    Task { [self] in
                        try? await Task.sleep(for: timeout)
                        wake(id)
                    }
                }
            }
        } onCancel: {
            wake(id)
        }
    }

    private func wake(_ id: Int) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.resume()
    }
}
