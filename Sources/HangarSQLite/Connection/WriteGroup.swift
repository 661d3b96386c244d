import Dispatch
import Foundation
import Hangar
import Synchronization

// The data of group commit (``SQLiteWriter`` runs it): what each write of a group adds, the group, and how it ended.

/// What one write of a group adds to it.
struct GroupFootprint: Sendable {
    /// The bytes of the bodies it saved.
    var bytes: Int
    /// Whether it recorded a change (the followers are woken once the group commits).
    var recordedChanges: Bool
}

/// A write that has run in a group: its own result and what it added.
protocol GroupMember {
    var footprint: GroupFootprint { get }
}

/// The writes sharing one open transaction. Touched only by the write whose turn it is; its outcome by anyone.
final class WriteGroup: @unchecked Sendable {
    private(set) var writes = 0
    private(set) var bytes = 0
    private(set) var recordedChanges = false
    /// Settled once the group's transaction has committed or been rolled back.
    let outcome = GroupOutcome()

    func add(_ footprint: GroupFootprint) {
        writes += 1
        bytes += footprint.bytes
        recordedChanges = recordedChanges || footprint.recordedChanges
    }

    /// Whether another write may join under `policy`.
    func hasRoom(under policy: SQLiteStoreConfiguration.GroupCommit) -> Bool {
        policy.isEnabled && writes < policy.maximumWrites && bytes < policy.maximumBytes
    }
}

/// How a group ended, for the writes waiting on it: `nil` once committed, the error otherwise.
final class GroupOutcome: Sendable {
    private enum Waiter {
        case task(CheckedContinuation<HangarError?, Never>)
        case thread(DispatchSemaphore)
        case callback(@Sendable (HangarError?) -> Void)
    }

    private enum State {
        case pending([Waiter])
        case settled(HangarError?)
    }

    private let state = Mutex(State.pending([]))

    /// Ends the group: wakes every write waiting and answers the later ones at once.
    func settle(_ failure: HangarError?) {
        let waiters = state.withLock { state -> [Waiter] in
            guard case .pending(let waiters) = state else { return [] }
            state = .settled(failure)
            return waiters
        }
        for waiter in waiters {
            switch waiter {
            case .task(let continuation): continuation.resume(returning: failure)
            case .thread(let semaphore): semaphore.signal()
            case .callback(let callback): callback(failure)
            }
        }
    }

    /// Waits, without a thread, for the group to end; not cancellable: the write may already be committed.
    func failure() async -> HangarError? {
        await withCheckedContinuation { continuation in
            let settled = state.withLock { state -> HangarError?? in
                switch state {
                case .settled(let failure): return .some(failure)
                case .pending(let waiters):
                    state = .pending(waiters + [.task(continuation)])
                    return nil
                }
            }
            if let settled { continuation.resume(returning: settled) }
        }
    }

    /// Calls `callback` once the group has ended: at once, on this thread, if it has.
    func whenSettled(_ callback: @escaping @Sendable (HangarError?) -> Void) {
        let settled = state.withLock { state -> HangarError?? in
            switch state {
            case .settled(let failure): return .some(failure)
            case .pending(let waiters):
                state = .pending(waiters + [.callback(callback)])
                return nil
            }
        }
        if let settled { callback(settled) }
    }

    /// Blocks this thread until the group ends.
    func failureBlocking() -> HangarError? {
        let semaphore = DispatchSemaphore(value: 0)
        let settled = state.withLock { state -> HangarError?? in
            switch state {
            case .settled(let failure): return .some(failure)
            case .pending(let waiters):
                state = .pending(waiters + [.thread(semaphore)])
                return nil
            }
        }
        if let settled { return settled }
        semaphore.wait()
        return state.withLock { state in
            if case .settled(let failure) = state { return failure }
            return HangarError(.database, "A write group ended without an outcome")
        }
    }
}
