package import Hangar
package import PostgresNIO
import Synchronization

extension PostgresConnection {
    /// Runs `statement` and collects its rows, but waits for the answer at most `deadline`. postgres-nio may
    /// never answer a statement written to a connection that closed just before (after the `isClosed` check):
    /// past the deadline the connection is closed (the server rolls back what it had not committed, and the pool
    /// drops it), the statement is left to end on its own, and ``StatementDeadlineExpired`` is thrown.
    ///
    /// The statement goes through postgres-nio's future interface, whose answer resumes the caller from the
    /// connection's event loop: no task per statement, and the deadline is one timer on that loop.
    package func rows(
        _ statement: PostgresQuery, within deadline: Duration, logger: Logger
    ) async throws -> [PostgresRow] {
        let handoff = ContinuationHandoff<[PostgresRow]>()
        // Whichever comes first, the answer or the deadline, decides; past the deadline the caller hears of it
        // once the connection is closed, so the pool never lends it again.
        let decided = Mutex(false)
        let decide: @Sendable () -> Bool = {
            decided.withLock { decided in
                defer { decided = true }
                return !decided
            }
        }
        return try await withCheckedThrowingContinuation { continuation in
            handoff.start(continuation)
            let (seconds, attoseconds) = deadline.components
            let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
            let timer = eventLoop.scheduleTask(
                in: .nanoseconds(nanoseconds.overflow ? .max : nanoseconds.partialValue + attoseconds / 1_000_000_000)
            ) { [self] in
                guard decide() else { return }
                let closing: EventLoopFuture<Void> = close()
                closing.whenComplete { _ in
                    _ = handoff.finish(.failure(StatementDeadlineExpired(deadline: deadline)))
                }
            }
            query(statement, logger: logger).whenComplete { result in
                guard decide() else { return }
                timer.cancel()
                _ = handoff.finish(result.map(\.rows))
            }
        }
    }
}

extension PostgresConnection {
    /// ``rows(_:within:logger:)``, its failure the layer's error for `phase`: an expired deadline is
    /// ``Hangar/HangarError/postgresNoAnswer(sql:phase:deadline:underlying:)``, anything else
    /// ``Hangar/HangarError/postgres(_:sql:phase:)``.
    package func rows(
        _ statement: PostgresQuery, within deadline: Duration, logger: Logger, phase: PostgresPhase
    ) async throws(HangarError) -> [PostgresRow] {
        do {
            return try await rows(statement, within: deadline, logger: logger)
        } catch let expired as StatementDeadlineExpired {
            throw HangarError.postgresNoAnswer(
                sql: statement.sql, phase: phase, deadline: expired.deadline, underlying: expired)
        } catch {
            throw HangarError.postgres(error, sql: statement.sql, phase: phase)
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
