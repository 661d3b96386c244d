package import Hangar
package import PostgresNIO

/// How a transaction begins: its isolation level, whether it may write, and how often the engine may run it
/// again after it lost to a concurrent transaction.
package struct PostgresTransactionOptions: Sendable, Hashable {
    /// PostgreSQL's isolation levels.
    package enum Isolation: String, Sendable, Hashable {
        /// Each statement sees what was committed when it started; a row lock (`FOR UPDATE`) waits for the
        /// holder and then sees its commit. No serialization failures, but no snapshot across statements.
        case readCommitted = "READ COMMITTED"
        /// One snapshot for the whole transaction; a write to a row changed since then fails (40001).
        case repeatableRead = "REPEATABLE READ"
        /// As if transactions ran one at a time; any dangerous overlap fails (40001).
        case serializable = "SERIALIZABLE"
    }

    /// The isolation level.
    package var isolation: Isolation
    /// Whether the transaction is `READ ONLY` (the server refuses any write in it).
    package var readOnly: Bool
    /// How many times the transaction runs at most when it loses to a concurrent one
    /// (``HangarError/Code/serializationFailure``): each attempt starts over on a clean transaction, so the
    /// closure must have no effect outside the database. 1: never again.
    package var maximumAttempts: Int
    /// Whether the "transaction" is one statement run on its own, without `BEGIN` and `COMMIT`: a single
    /// statement already sees one snapshot, and saves two round trips. Its closure runs exactly one statement.
    package var singleStatement: Bool

    /// Creates options.
    package init(isolation: Isolation, readOnly: Bool, maximumAttempts: Int = 1, singleStatement: Bool = false) {
        self.isolation = isolation
        self.readOnly = readOnly
        self.maximumAttempts = maximumAttempts
        self.singleStatement = singleStatement
    }

    /// A reader: one snapshot for every statement (as a SQLite read transaction), never blocked, never failing
    /// for concurrency.
    package static let read = Self(isolation: .repeatableRead, readOnly: true)
    /// A writer at READ COMMITTED, run up to 5 times when it loses to a concurrent transaction.
    package static let write = Self(isolation: .readCommitted, readOnly: false, maximumAttempts: 5)
    /// One read statement on its own (autocommit): its own snapshot, no `BEGIN`/`COMMIT` round trips.
    package static let singleRead = Self(isolation: .readCommitted, readOnly: true, singleStatement: true)
    /// One write statement on its own (autocommit): the change feed's numbering after a commit.
    package static let singleWrite = Self(isolation: .readCommitted, readOnly: false, singleStatement: true)

    /// The `BEGIN` statement.
    var begin: String { "BEGIN ISOLATION LEVEL \(isolation.rawValue) \(readOnly ? "READ ONLY" : "READ WRITE")" }
}

/// One open transaction on one connection, handed to ``PostgresEngine/withTransaction(_:isolation:_:)``'s closure.
/// Use it only inside the closure. Its statements map every failure to a ``HangarError`` (in one place,
/// `HangarError.postgres`); after a failed statement the transaction is aborted (PostgreSQL runs nothing more in
/// it), every later statement throws the same error, and the engine rolls it back even if the closure returns.
package final class PostgresTransaction {
    /// The connection, for what the statements below do not cover. Do not run `BEGIN`, `COMMIT` or `ROLLBACK`
    /// on it, nor keep it after the closure.
    package let connection: PostgresConnection
    /// The store's SQL.
    package let sql: PostgresStoreSQL
    /// How the transaction began.
    package let options: PostgresTransactionOptions
    /// The change feed's sequence for this transaction (``PostgresChangeRecorder``).
    package let changes = PostgresChangeRecorder()
    /// The first statement failure: the transaction can only roll back.
    package private(set) var failure: HangarError?
    let logger: Logger
    /// How long a statement's answer is waited for (``PostgresStoreConfiguration/answerDeadline``).
    let deadline: Duration

    init(
        connection: PostgresConnection, sql: PostgresStoreSQL, options: PostgresTransactionOptions, logger: Logger,
        deadline: Duration
    ) {
        self.connection = connection
        self.sql = sql
        self.options = options
        self.logger = logger
        self.deadline = deadline
    }

    /// What a statement's lost answer means: a write statement on its own commits as it ends, so losing its answer
    /// leaves the outcome unknown (``HangarError/Code/outcomeUnknown``); inside a transaction nothing is written
    /// before `COMMIT`.
    private var statementPhase: PostgresPhase {
        options.singleStatement && !options.readOnly ? .commit : .statement
    }

    /// Marks the transaction failed with `error` (it rolls back, and every later statement throws `error`): for a
    /// write found wrong after its statement ran, which must not commit even if the closure catches the error.
    package func abandon(because error: HangarError) {
        if failure == nil { failure = error }
    }

    /// Runs `statement` with `binds` and returns its rows.
    package func query(_ statement: String, _ binds: PostgresBindings = PostgresBindings()) async throws(HangarError)
        -> [PostgresRow]
    {
        if let failure { throw failure }
        // A statement written to a connection the server closed is never answered (postgres-nio drops the
        // write): check first. A close racing this check is covered by the deadline.
        guard !connection.isClosed else {
            let closed = HangarError.postgresConnectionClosed(sql: statement)
            failure = closed
            throw closed
        }
        do throws(HangarError) {
            return try await connection.rows(
                PostgresQuery(unsafeSQL: statement, binds: binds), within: deadline, logger: logger,
                phase: statementPhase)
        } catch {
            failure = error
            throw error
        }
    }

    /// Runs `statement` with `binds`, ignoring any rows.
    package func execute(_ statement: String, _ binds: PostgresBindings = PostgresBindings()) async throws(HangarError)
    {
        _ = try await query(statement, binds)
    }

    /// Runs `statement` and decodes the first column of its first row as `Value` (`nil` without rows or for
    /// SQL NULL).
    package func scalar<Value: PostgresDecodable>(
        _ statement: String, _ binds: PostgresBindings = PostgresBindings(), as _: Value.Type
    ) async throws(HangarError) -> Value? {
        guard let row = try await query(statement, binds).first else { return nil }
        return try decode(row, statement: statement) { row in
            var cells = row.makeIterator()
            guard let cell = cells.next(), cell.bytes != nil else { return nil }
            return try cell.decode(Value.self)
        }
    }

    /// Decodes `row` with `decoder`; a failure is ``HangarError/Code/database`` naming `statement`.
    package func decode<Value>(
        _ row: PostgresRow, statement: String, _ decoder: (PostgresRow) throws -> Value
    ) throws(HangarError) -> Value {
        do {
            return try decoder(row)
        } catch {
            throw HangarError(.database, "A row has an unexpected shape", sql: statement, underlying: error)
        }
    }
}

/// Bytes as `bytea`: postgres-nio binds a `[UInt8]` as a `"char"[]` array, so blobs go through `ByteBuffer`.
package enum PostgresBytes {
    /// `bytes` bound as `bytea`.
    package static func bind(_ bytes: [UInt8]) -> ByteBuffer { ByteBuffer(bytes: bytes) }

    /// A `bytea` value read as bytes.
    package static func bytes(_ buffer: ByteBuffer) -> [UInt8] { Array(buffer.readableBytesView) }
}
