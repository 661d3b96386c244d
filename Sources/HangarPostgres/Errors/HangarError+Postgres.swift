package import Hangar
import PostgresNIO

/// Where in a transaction an error happened: it decides what a lost connection means.
package enum PostgresPhase: Sendable {
    /// Getting a connection, or `BEGIN`: nothing ran.
    case connecting
    /// A statement inside the transaction: it rolls back.
    case statement
    /// `COMMIT`: a lost connection leaves the outcome unknown.
    case commit
}

/// SQLSTATE codes the engine acts on (PostgreSQL's appendix A). Decisions are made on these and on
/// `PSQLError.Code`, never on message text.
package enum SQLState {
    package static let uniqueViolation = "23505"
    package static let serializationFailure = "40001"
    package static let deadlockDetected = "40P01"
    package static let queryCanceled = "57014"
    package static let lockNotAvailable = "55P03"
    package static let idleInTransactionTimeout = "25P03"
    package static let adminShutdown = "57P01"
    package static let crashShutdown = "57P02"
    package static let cannotConnectNow = "57P03"
    package static let tooManyConnections = "53300"
    package static let inFailedTransaction = "25P02"
    /// Class 08: connection exceptions.
    package static let connectionExceptionClass = "08"

    /// Whether running the transaction again may succeed: it lost to a concurrent transaction (a serialization
    /// failure, a deadlock, or a concurrent insert of the same key: Hangar checks every unique value before it
    /// writes, so a unique violation means a race, not a duplicate).
    package static func isConcurrencyFailure(_ state: String?) -> Bool {
        state == serializationFailure || state == deadlockDetected || state == uniqueViolation
    }
}

extension HangarError {
    /// The one mapping of PostgreSQL failures to Hangar errors. `sql` is the statement that failed (never its
    /// values); `phase` says whether a lost connection left the outcome unknown (during `COMMIT`).
    /// A `HangarError` is returned as it is.
    package static func postgres(_ error: any Error, sql: String?, phase: PostgresPhase) -> HangarError {
        if let hangar = error as? HangarError { return hangar }
        guard let psql = error as? PSQLError else {
            // Not postgres-nio's: the pool failing to connect (its circuit breaker), or the network.
            return lost(phase, "The connection to the PostgreSQL server failed", sql: sql, underlying: error)
        }
        if let state = sqlState(of: psql) {
            return server(psql, state: state, sql: sql, phase: phase)
        }
        switch psql.code {
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown,
            .sslUnsupported, .failedToAddSSLHandler:
            return lost(phase, "The connection to the PostgreSQL server was lost", sql: sql, underlying: psql)
        case .poolClosed:
            return HangarError(.database, "The store is closed", sql: sql, underlying: psql)
        case .queryCancelled:
            return HangarError(.database, "The request was cancelled", sql: sql, underlying: psql)
        default:
            return HangarError(
                .database, "PostgreSQL client error (\(psql.code))", sql: sql, underlying: psql)
        }
    }

    /// The connection was found closed (the server ended the session while it was idle) before a statement was
    /// sent on it: nothing more ran, so the transaction is rolled back, even at `COMMIT`.
    package static func postgresConnectionClosed(sql: String?) -> HangarError {
        HangarError(
            .connectionLost,
            "The PostgreSQL server had closed the connection (it ended the session); the transaction was rolled back",
            sql: sql)
    }

    /// The SQLSTATE of a server error, also when postgres-nio reports it inside a closed connection.
    static func sqlState(of error: PSQLError) -> String? {
        if let state = error.serverInfo?[.sqlState] { return state }
        if let inner = error.underlying as? PSQLError { return inner.serverInfo?[.sqlState] }
        return nil
    }

    private static func server(_ psql: PSQLError, state: String, sql: String?, phase: PostgresPhase) -> HangarError {
        let code: Code
        let what: String
        switch state {
        case _ where SQLState.isConcurrencyFailure(state):
            code = .serializationFailure
            what = "The transaction lost to a concurrent one and was rolled back"
        case SQLState.queryCanceled:
            code = .timeout
            what = "A statement ran longer than the statement timeout and was cancelled"
        case SQLState.lockNotAvailable:
            code = .timeout
            what = "A statement waited longer than the lock timeout"
        case SQLState.idleInTransactionTimeout:
            code = .timeout
            what = "The transaction was idle longer than the idle-in-transaction timeout; the server ended the session"
        case SQLState.adminShutdown, SQLState.crashShutdown, SQLState.cannotConnectNow, SQLState.tooManyConnections:
            return lost(phase, "The PostgreSQL server ended or refused the session", sql: sql, underlying: psql, state)
        case _ where state.hasPrefix(SQLState.connectionExceptionClass):
            return lost(phase, "The connection to the PostgreSQL server failed", sql: sql, underlying: psql, state)
        default:
            code = .database
            // Data and constraint errors (classes 22, 23) may quote values: their text is left out.
            let quotesValues = state.hasPrefix("22") || state.hasPrefix("23")
            let text = quotesValues ? nil : psql.serverInfo?[.message]
            what = "PostgreSQL error" + (text.map { ": \($0)" } ?? "")
        }
        var error = HangarError(code, "\(what) (SQLSTATE \(state))", sql: sql, underlying: psql)
        error.sqlState = state
        return error
    }

    /// A lost connection: ``Code/outcomeUnknown`` during `COMMIT`, ``Code/connectionLost`` before.
    private static func lost(
        _ phase: PostgresPhase, _ what: String, sql: String?, underlying: any Error, _ state: String? = nil
    ) -> HangarError {
        let suffix = state.map { " (SQLSTATE \($0))" } ?? ""
        var error: HangarError
        switch phase {
        case .commit:
            error = HangarError(
                .outcomeUnknown,
                "\(what) while the transaction was committing: it may or may not have committed\(suffix)",
                sql: sql, underlying: underlying)
        case .connecting, .statement:
            error = HangarError(
                .connectionLost, "\(what); the transaction was rolled back\(suffix)", sql: sql,
                underlying: underlying)
        }
        error.sqlState = state
        return error
    }
}
