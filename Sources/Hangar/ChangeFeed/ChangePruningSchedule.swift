import Synchronization

/// When a store's commits next need to look for changes older than ``ChangeRetention/maximumAge``.
///
/// A commit that prunes by age finds the first change young enough to keep; nothing kept can grow too old
/// before that change does, so the next commits skip the query until then. Commits through other
/// connections only prune more, never less, so a check comes early rather than late. If the transaction
/// that scheduled it rolls back, the older changes it would have pruned wait for the scheduled check: a
/// prune may come later than the retention allows, never earlier.
package final class ChangePruningSchedule: Sendable {
    package init() {}

    /// Seconds since 1970 from which a commit looks again; 0: the next commit does.
    private let nextCheck = Mutex<Double>(0)

    /// Whether a commit at `now` should look for changes to prune by age.
    package func isAgeCheckDue(at now: Double) -> Bool {
        nextCheck.withLock { now >= $0 }
    }

    /// The next commit at or after `time` looks again.
    package func scheduleAgeCheck(at time: Double) {
        nextCheck.withLock { $0 = time }
    }
}
