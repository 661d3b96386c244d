import Synchronization

/// Resumes a continuation exactly once, whichever comes first: the awaited value or error (a pooled connection,
/// a statement's answer), or a timeout's error (the acquire timeout, the statement deadline).
final class ContinuationHandoff<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var finished = false
        var onFinish: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<Value, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Runs `action` once the handoff is finished (at once if it is).
    func onFinish(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            if state.finished { return true }
            state.onFinish = action
            return false
        }
        if now { action() }
    }

    /// Resumes with `result` if nothing did yet; returns whether this call did.
    func finish(_ result: Result<Value, any Error>) -> Bool {
        let taken = state.withLock { state -> (CheckedContinuation<Value, any Error>, (@Sendable () -> Void)?)? in
            guard !state.finished, let continuation = state.continuation else { return nil }
            state.finished = true
            state.continuation = nil
            defer { state.onFinish = nil }
            return (continuation, state.onFinish)
        }
        guard let (continuation, action) = taken else { return false }
        continuation.resume(with: result)
        action?()
        return true
    }
}
