package import Hangar
package import PostgresNIO
import Synchronization

extension PostgresConnection {
    /// Runs `statement` and collects its rows, but waits for the answer at most `deadline`. postgres-nio may
    /// never answer a statement written to a connection that closed just before (after the `isClosed` check):
    /// past the deadline the connection is closed (the server rolls back what it had not committed, and the pool
    /// drops it), the statement is left to end on its own, and ``StatementDeadlineExpired`` is thrown.
    package func rows(
        _ statement: PostgresQuery, within deadline: Duration, logger: Logger
    ) async throws -> [PostgresRow] {
        try await answer(within: deadline) {
            try await self.query(statement, logger: logger).collect()
        }
    }

    /// Runs `operation` (a statement on this connection) and returns its answer, or throws
    /// ``StatementDeadlineExpired`` once `deadline` passed without one (having closed the connection).
    func answer<Value: Sendable>(
        within deadline: Duration, _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let handoff = ContinuationHandoff<Value>()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            handoff.start(continuation)
            let work = Task {
                do {
                    _ = handoff.finish(.success(try await operation()))
                } catch {
                    _ = handoff.finish(.failure(error))
                }
            }
            let (seconds, attoseconds) = deadline.components
            let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
            let timer = eventLoop.scheduleTask(
                in: .nanoseconds(nanoseconds.overflow ? .max : nanoseconds.partialValue + attoseconds / 1_000_000_000)
            ) { [self] in
                guard handoff.finish(.failure(StatementDeadlineExpired(deadline: deadline))) else { return }
                let closing: EventLoopFuture<Void> = close()
                _ = closing
                work.cancel()
            }
            handoff.onFinish { timer.cancel() }
        }
    }
}

/// No answer to a statement came within the deadline; the connection was closed.
package struct StatementDeadlineExpired: Error, Sendable {
    /// The deadline that passed.
    package let deadline: Duration
}

extension HangarError {
    /// A statement unanswered within `deadline`, in `phase`: the engine closed the connection, so the server
    /// rolls back what it had not committed: ``Code/connectionLost`` before `COMMIT` (nothing written),
    /// ``Code/outcomeUnknown`` during it.
    package static func postgresNoAnswer(
        sql: String?, phase: PostgresPhase, deadline: Duration, underlying: any Error
    ) -> HangarError {
        let what =
            "The PostgreSQL server did not answer within the statement deadline (\(deadline)); the connection was closed"
        switch phase {
        case .commit:
            return HangarError(
                .outcomeUnknown, "\(what) during COMMIT: the transaction may or may not have committed", sql: sql,
                underlying: underlying)
        case .connecting, .statement:
            return HangarError(
                .connectionLost, "\(what); the transaction was rolled back", sql: sql, underlying: underlying)
        }
    }
}
