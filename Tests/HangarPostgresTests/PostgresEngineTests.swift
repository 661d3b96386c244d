import Foundation
import Hangar
import HangarTestSupport
import PostgresNIO
import Testing

@testable import HangarPostgres

/// The transaction primitive and its error mapping, against the real server.
@Suite(.enabled(if: TestPostgres.shouldRun)) struct PostgresEngineTests {
    struct Planned: Error {}

    /// The documents of the test collection, read on a connection of another engine.
    func count(_ configuration: PostgresStoreConfiguration) async throws -> Int64? {
        let other = try PostgresEngine(configuration: configuration)
        do {
            let count = try await other.withTransaction(.read) { transaction in
                try await transaction.scalar(transaction.sql.documents.countDocuments, binds("pilots"), as: Int64.self)
            }
            await other.close()
            return count
        } catch {
            await other.close()
            throw error
        }
    }

    @Test func aThrowingTransactionRollsBackAndLeavesItsConnectionOutOfTransaction() async throws {
        try await withTestEngine(configure: { $0.poolSize = 1 }) { engine in
            await #expect(throws: Planned.self) {
                try await engine.withTransaction { transaction in
                    try await insertDocument("rolled-back", in: transaction)
                    throw Planned()
                }
            }
            // The same (only) connection: had it stayed in the transaction, this COMMIT would commit both rows.
            try await engine.withTransaction { transaction in try await insertDocument("kept", in: transaction) }
            #expect(try await count(engine.configuration) == 1)
        }
    }

    @Test func aFailedStatementRollsBackEvenWhenTheClosureCatchesIt() async throws {
        try await withTestEngine(configure: { $0.poolSize = 1 }) { engine in
            do {
                try await engine.withTransaction { transaction in
                    try await insertDocument("first", in: transaction)
                    do {
                        try await transaction.execute("SELECT * FROM no_such_table")
                    } catch let error as HangarError {
                        #expect(error.code == .database)
                        #expect(error.sqlState == "42P01")
                    }
                }
                Issue.record("a transaction with a failed statement committed")
            } catch let error as HangarError {
                #expect(error.code == .database)
            }
            #expect(try await count(engine.configuration) == 0)
        }
    }

    // The configured timeouts reach every connection (SHOW); the statement under test then lowers its own
    // transaction's (SET LOCAL), so that the other statements of a loaded machine never meet a short timeout.

    @Test func aStatementOverTheStatementTimeoutIsATypedTimeout() async throws {
        try await withTestEngine(configure: { $0.statementTimeout = .seconds(7) }) { engine in
            do {
                try await engine.withTransaction { transaction in
                    let setting = try await transaction.scalar("SHOW statement_timeout", as: String.self)
                    #expect(setting == "7s")
                    try await transaction.execute("SET LOCAL statement_timeout = 200")
                    try await transaction.execute("SELECT pg_sleep(3)")
                }
                Issue.record("the statement was not cancelled")
            } catch let error as HangarError {
                #expect(error.code == .timeout)
                #expect(error.sqlState == "57014")
            }
            // The engine goes on.
            let one = try await engine.withTransaction(.read) { try await $0.scalar("SELECT 1", as: Int32.self) }
            #expect(one == 1)
        }
    }

    @Test func aSessionIdleInATransactionIsEndedByTheServer() async throws {
        try await withTestEngine(configure: { $0.idleInTransactionTimeout = .seconds(9) }) { engine in
            do {
                try await engine.withTransaction { transaction in
                    let setting = try await transaction.scalar(
                        "SHOW idle_in_transaction_session_timeout", as: String.self)
                    #expect(setting == "9s")
                    try await transaction.execute("SET LOCAL idle_in_transaction_session_timeout = 500")
                    try await insertDocument("frozen", in: transaction)
                    try await Task.sleep(for: .milliseconds(2_500))
                    try await transaction.execute("SELECT 1")
                }
                Issue.record("the idle transaction was not ended")
            } catch let error as HangarError {
                #expect(error.code == .timeout || error.code == .connectionLost)
                #expect(error.code.isRetryable || error.code == .timeout)
            }
            #expect(try await count(engine.configuration) == 0)
            // The pool connects again.
            try await engine.withTransaction { transaction in try await insertDocument("after", in: transaction) }
            #expect(try await count(engine.configuration) == 1)
        }
    }

    @Test func aTerminatedConnectionIsConnectionLostAndTheNextCallReconnects() async throws {
        try await withTestEngine(configure: { $0.poolSize = 1 }) { engine in
            let admin = try PostgresEngine(configuration: engine.configuration)
            var killed: Int32?
            do {
                try await engine.withTransaction { transaction in
                    let pid = try await transaction.scalar("SELECT pg_backend_pid()", as: Int32.self)
                    killed = pid
                    try await admin.withTransaction { other in
                        _ = try await other.scalar("SELECT pg_terminate_backend($1)", binds(pid ?? 0), as: Bool.self)
                    }
                    try await insertDocument("lost", in: transaction)
                }
                Issue.record("a transaction on a terminated connection committed")
            } catch let error as HangarError {
                #expect(error.code == .connectionLost)
                #expect(error.code.isRetryable)
            }
            await admin.close()
            let pid = try await engine.withTransaction { transaction in
                try await insertDocument("after", in: transaction)
                return try await transaction.scalar("SELECT pg_backend_pid()", as: Int32.self)
            }
            #expect(pid != nil && pid != killed)
            #expect(try await count(engine.configuration) == 1)
        }
    }

    @Test func aTransactionThatLosesToAConcurrentOneRunsAgain() async throws {
        try await withTestEngine(configure: { $0.poolSize = 4 }) { engine in
            let options = PostgresTransactionOptions(isolation: .serializable, readOnly: false, maximumAttempts: 20)
            // Each adds one to a counter it read: under SERIALIZABLE, overlapping ones fail with 40001 and run
            // again, so no increment is lost.
            try await engine.withTransaction { transaction in try await insertDocument("counter", in: transaction) }
            let sql = engine.sql
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        for _ in 0..<5 {
                            try await engine.withTransaction(options) { transaction in
                                let revision = try await transaction.scalar(
                                    sql.documents.currentRevision, binds("pilots", "counter"), as: Int64.self)
                                try await transaction.execute(
                                    "UPDATE \(sql.quotedSchema).documents SET revision = $1 WHERE key = 'counter'",
                                    binds((revision ?? 0) + 1))
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let revision = try await engine.withTransaction(.read) { transaction in
                try await transaction.scalar(sql.documents.currentRevision, binds("pilots", "counter"), as: Int64.self)
            }
            #expect(revision == 21)
        }
    }
}

/// No server at all: a typed error, not a wait without end.
@Suite struct PostgresUnreachableServerTests {
    @Test(.timeLimit(.minutes(1))) func noServerIsConnectionLost() async throws {
        var configuration = try PostgresStoreConfiguration(url: "postgres://nobody:nothing@127.0.0.1:1/none")
        configuration.connectTimeout = .seconds(1)
        configuration.acquireTimeout = .seconds(3)
        let engine = try PostgresEngine(configuration: configuration)
        do {
            try await engine.prepareSchema()
            Issue.record("a store opened without a server")
        } catch {
            #expect(error.code == .connectionLost)
            #expect(error.code.isRetryable)
        }
        await engine.close()
    }
}
