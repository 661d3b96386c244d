package import Hangar
package import PostgresNIO

/// The PostgreSQL engine's core: owns the `PostgresClient` (its pool) and the task that runs it, creates and
/// upgrades the store's schema, and runs transactions: `BEGIN`, the closure, `COMMIT`, with `ROLLBACK` on any
/// error so no connection goes back to the pool inside a transaction.
///
/// ```swift
/// let engine = try PostgresEngine(configuration: configuration)
/// try await engine.prepareSchema()
/// let count = try await engine.withTransaction(.read) { transaction in
///     try await transaction.scalar(transaction.sql.documents.countDocuments, ["pilots"], as: Int64.self)
/// }
/// await engine.close()
/// ```
package final class PostgresEngine: Sendable {
    /// The configuration the engine was opened with.
    package let configuration: PostgresStoreConfiguration
    /// The store's SQL, in the configured schema.
    package let sql: PostgresStoreSQL
    /// The servers that may be the primary and which one is (``PostgresStoreConfiguration/failoverHosts``).
    let primary: PostgresPrimary
    /// The pool of the primary in use.
    package var client: PostgresClient { primary.client }
    /// The first server's pool configuration (``PostgresStoreConfiguration/makeClientConfiguration()``).
    package let clientConfiguration: PostgresClient.Configuration
    /// Where the change feed listens when not on the primary in use (``PostgresStoreConfiguration/listenClient``).
    let listenConfiguration: PostgresClient.Configuration?
    /// The read replicas and their watch (``PostgresStoreConfiguration/replicas``); `nil` without any.
    let replicaSet: PostgresReplicaSet?
    /// postgres-nio's own logger: kept quiet (its records may hold statements' bound values).
    let logger: Logger
    /// Where the store logs and what it measures with (``Hangar/StoreConfiguration/observability``).
    package let instruments: StoreInstruments

    /// Starts a client for `configuration` (no connection is made until the first transaction).
    ///
    /// - Throws: ``HangarError/Code/invalidConfiguration`` for an invalid configuration.
    package init(configuration: PostgresStoreConfiguration) throws(HangarError) {
        let clientConfiguration = try configuration.makeClientConfiguration()
        var logger = Logger(label: "hangar.postgres")
        logger.logLevel = .critical
        self.configuration = configuration
        self.sql = PostgresStoreSQL(schema: configuration.schema)
        self.logger = logger
        self.clientConfiguration = clientConfiguration
        if let listen = configuration.listenClient {
            listenConfiguration = try configuration.makeClientConfiguration(for: listen)
        } else {
            listenConfiguration = nil
        }
        let instruments = StoreInstruments(engine: "postgres", observability: configuration.store.observability)
        self.instruments = instruments
        var hosts = [clientConfiguration]
        for host in configuration.failoverHosts { hosts.append(try configuration.makeClientConfiguration(for: host)) }
        let primary = PostgresPrimary(configurations: hosts, logger: logger, instruments: instruments)
        self.primary = primary
        if configuration.replicas.isEmpty {
            replicaSet = nil
        } else {
            var replicas: [PostgresClient.Configuration] = []
            for replica in configuration.replicas {
                replicas.append(try configuration.makeClientConfiguration(for: replica))
            }
            let set = PostgresReplicaSet(
                configurations: replicas, primary: primary, maximumLag: configuration.maximumReplicaLag, logger: logger)
            replicaSet = set
        }
        primary.start()
    }

    /// Starts checking the replicas, which serve no read before: called once the store's schema is prepared, so
    /// that the first position a replica must have replayed is one after it (a replica without the schema the
    /// primary just created would answer "no such table").
    package func startReplicas() {
        replicaSet?.start()
    }

    deinit {
        primary.cancel()
    }

    /// Ends the client: its connections are closed; later transactions fail.
    package func close() async {
        await replicaSet?.close()
        await primary.close()
    }

    // MARK: Transactions

    /// Runs `body` in a transaction on a pooled connection and commits it; returns what `body` returns.
    ///
    /// - `BEGIN` starts it as `options` say. When `body` throws, or a statement in it failed (even if `body`
    ///   caught the error), the transaction is rolled back and the error is thrown: a PostgreSQL error mapped to
    ///   ``HangarError`` (`HangarError.postgres`), `body`'s own errors as they are. When the rollback itself
    ///   fails, the connection is closed, so it never returns to the pool inside a transaction.
    /// - Before `COMMIT`, the changes it recorded are noted, and numbered when nobody else is numbering
    ///   (``PostgresChangeRecorder/finish(retention:in:)``); otherwise after it
    ///   (``PostgresChangeRecorder/number(ticket:retention:in:)``).
    /// - No statement's answer is waited for longer than ``PostgresStoreConfiguration/answerDeadline``.
    /// - A transaction that lost to a concurrent one (``HangarError/Code/serializationFailure``: 40001, 40P01, or
    ///   a unique violation from a concurrent insert) is run again from the start, on a new transaction, up to
    ///   `options.maximumAttempts` times: nothing of it was committed or returned, so `body` must only have
    ///   effects in the database.
    /// - A connection lost before `COMMIT` is ``HangarError/Code/connectionLost`` (nothing written; the pool
    ///   connects again on the next call); lost during `COMMIT`, ``HangarError/Code/outcomeUnknown``.
    /// - `target`: the pool to run on (a replica's, for ``withRead(after:_:token:isolation:_:)``); the primary's by
    ///   default. `gate`: a WAL position the server must have replayed before `BEGIN` (a replica, for a token).
    /// - `token`: when given, receives the state's ``Hangar/CommitToken`` (after `COMMIT`, on the same connection).
    package func withTransaction<Result>(
        _ options: PostgresTransactionOptions = .write,
        on target: PostgresClient? = nil,
        gate: ReplayGate? = nil,
        token: CommitTokenSlot? = nil,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresTransaction) async throws -> sending Result
    ) async throws -> sending Result {
        let start = ContinuousClock.now
        defer { instruments.finished(options.readOnly ? .read : .write, since: start) }
        var attempt = 1
        while true {
            do {
                return try await runOnce(
                    options, on: target, gate: gate, token: token, isolation: isolation, body)
            } catch let error as HangarError
                where error.code == .serializationFailure && attempt < options.maximumAttempts
            {
                attempt += 1
                instruments.retrying(attempt: attempt, reason: "serialization", error: error)
                // A little random wait, so two transactions that collided do not collide again at once.
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(5 * attempt))))
            } catch let error as HangarError {
                report(error, attempts: attempt)
                throw error
            }
        }
    }

    /// Logs a transaction's failure an operator must hear of: the connection lost (warning), the outcome of a
    /// `COMMIT` unknown (error), every attempt lost to concurrent transactions (warning).
    private func report(_ error: HangarError, attempts: Int) {
        let metadata: Logger.Metadata = [
            "code": .string(error.code.description), "attempt": .stringConvertible(attempts),
        ]
        switch error.code {
        case .outcomeUnknown:
            instruments.count("hangar_outcome_unknown_total")
            instruments.logger.error("Connection lost during COMMIT: outcome unknown", metadata: metadata)
        case .connectionLost:
            instruments.count("hangar_connection_lost_total")
            instruments.logger.warning("Connection lost", metadata: metadata)
        case .serializationFailure:
            instruments.count("hangar_transaction_give_ups_total")
            instruments.logger.warning("Transaction gave up after repeated serialization failures", metadata: metadata)
        default:
            break
        }
    }

    private func runOnce<Result>(
        _ options: PostgresTransactionOptions, on target: PostgresClient?, gate: ReplayGate?, token: CommitTokenSlot?,
        isolation: isolated (any Actor)?,
        _ body: (PostgresTransaction) async throws -> sending Result
    ) async throws -> sending Result {
        let retention = configuration.store.changeRetention
        let lease = try await lease(timeout: gate?.acquireTimeout ?? configuration.acquireTimeout, on: target)
        defer { lease.release() }
        if let gate { try await waitForReplay(of: gate, on: lease.connection) }
        let value = try await run(options, on: lease.connection, retention: retention, isolation: isolation, body)
        if let token {
            token.token = try await readToken(on: lease.connection, afterWrite: !options.readOnly)
        } else if options.singleStatement && !options.readOnly {
            // A statement in autocommit is answered before its commit (which runs, and waits for a synchronous
            // standby, at the protocol's Sync): the next answer on the connection confirms the commit.
            _ = try await readToken(on: lease.connection, afterWrite: true)
        }
        return value
    }

    /// `BEGIN`, `body`, `COMMIT` on one leased connection; `ROLLBACK` on any error. A single statement
    /// (``PostgresTransactionOptions/singleStatement``) runs `body` alone.
    private func run<Result>(
        _ options: PostgresTransactionOptions, on connection: PostgresConnection, retention: ChangeRetention,
        isolation: isolated (any Actor)?, _ body: (PostgresTransaction) async throws -> sending Result
    ) async throws -> sending Result {
        guard !connection.isClosed else { throw HangarError.postgresConnectionClosed(sql: options.begin) }
        let deadline = configuration.answerDeadline
        let transaction = PostgresTransaction(
            connection: connection, sql: sql, options: options, logger: logger, deadline: deadline)
        if options.singleStatement {
            // No transaction to begin, commit or roll back: the statement's failure is its own.
            let value = try await body(transaction)
            if let failure = transaction.failure { throw failure }
            return value
        }
        try await command(options.begin, on: connection, phase: .connecting)
        let value: Result
        do {
            value = try await body(transaction)
            if let failure = transaction.failure { throw failure }
            try await transaction.changes.finish(retention: retention, in: transaction)
        } catch {
            await rollBack(connection)
            throw error is PSQLError ? HangarError.postgres(error, sql: nil, phase: .statement) : error
        }
        guard !connection.isClosed else {
            // COMMIT was not sent: the server rolled the transaction back when it closed the session.
            throw HangarError.postgresConnectionClosed(sql: "COMMIT")
        }
        try await command("COMMIT", on: connection, phase: .commit)
        if let ticket = transaction.changes.ticket {
            await numberChanges(after: ticket, on: connection, retention: retention)
        }
        return value
    }

    /// Runs `statement` (`BEGIN`, `COMMIT`, `ROLLBACK`) within the statement deadline; a failure is mapped for
    /// `phase`.
    private func command(_ statement: String, on connection: PostgresConnection, phase: PostgresPhase)
        async throws(HangarError)
    {
        _ = try await connection.rows(
            PostgresQuery(unsafeSQL: statement), within: configuration.answerDeadline, logger: logger, phase: phase)
    }

    /// Numbers the committed changes of `ticket` (and any other pending ones) in the feed, on the connection the
    /// transaction committed on (``PostgresChangeRecorder/number(ticket:retention:in:)``). The transaction is
    /// committed whatever happens here: a failure is logged, and the changes wait for the next numbering (by the
    /// next writer, or a follower's next look).
    private func numberChanges(after ticket: Int64, on connection: PostgresConnection, retention: ChangeRetention)
        async
    {
        let numbering = PostgresTransaction(
            connection: connection, sql: sql, options: .singleWrite, logger: logger,
            deadline: configuration.answerDeadline)
        do {
            try await PostgresChangeRecorder.number(ticket: ticket, retention: retention, in: numbering)
        } catch {
            instruments.count("hangar_changes_numbering_deferred_total")
            instruments.logger.warning(
                "Committed changes not numbered yet; the next numbering will",
                metadata: ["code": .string(error.code.description)])
        }
    }

    /// Numbers every committed change not numbered yet, in a statement of its own; returns whether it numbered
    /// any. A failure is logged (it is a follower's look when it found nothing new: changes whose writer lost its
    /// connection after `COMMIT`).
    package func numberPendingChanges() async -> Bool {
        do {
            let retention = configuration.store.changeRetention
            return try await withTransaction(.singleWrite) { transaction in
                try await PostgresChangeRecorder.number(ticket: nil, retention: retention, in: transaction) != nil
            }
        } catch {
            instruments.logger.debug("Numbering pending changes failed", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// Rolls back; when that fails (the connection is lost or broken) the connection is closed, so the pool
    /// drops it instead of lending it again inside a transaction.
    private func rollBack(_ connection: PostgresConnection) async {
        // A closed connection has no transaction left (and a statement on it would never be answered).
        guard !connection.isClosed else { return }
        do {
            try await command("ROLLBACK", on: connection, phase: .statement)
        } catch {
            try? await connection.close()
        }
    }
}
