import Foundation
import Hangar
import HangarTestSupport
import PostgresNIO
import PropertyList
import Testing

@_spi(Engine) @testable import HangarPostgres

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every statement has a client-side deadline (``PostgresStoreConfiguration/answerDeadline``): a server that
/// stops answering (its backend process stopped with SIGSTOP, so the socket stays open and silent) gives
/// ``HangarError/Code/connectionLost`` before `COMMIT` and ``HangarError/Code/outcomeUnknown`` during it, within
/// the deadline; sessions terminated mid-statement under load answer every call within the stated bound.
@Suite(.enabled(if: TestPostgres.shouldRun)) struct PostgresDeadlineTests {
    static let deadline = Duration.seconds(8)

    /// A configuration whose statements wait `deadline` for an answer, on a fresh schema.
    static func configuration(_ label: String, applicationName: String? = nil) throws -> PostgresStoreConfiguration {
        let url = postgresURL(
            try TestPostgres.requireURL(), schema: TestPostgres.uniqueSchemaName(label),
            applicationName: applicationName ?? uniqueApplicationName(label))
        var configuration = try PostgresStoreConfiguration(url: url, store: stressConfiguration())
        configuration.poolSize = 4
        configuration.statementDeadline = deadline
        return configuration
    }

    /// Drops the test's schema without the short deadline (the stopped session may hold its locks a moment
    /// after it is let go).
    static func dropSchema(of configuration: PostgresStoreConfiguration) async throws {
        var dropping = configuration
        dropping.statementDeadline = nil
        // The stopped backend, let go, may take a while to notice its closed connection and roll back on a loaded
        // machine: its locks can outlast one statement timeout.
        for attempt in 1...3 {
            do {
                try await HangarPostgresTests.dropSchema(of: dropping)
                return
            } catch let error as HangarError where error.code == .timeout && attempt < 3 {
                continue
            }
        }
    }

    /// Runs `body` in a write transaction whose backend is stopped (SIGSTOP) once `body` has run, with the stop
    /// undone afterwards; returns the error and how long the call took.
    static func runStopped(
        _ engine: PostgresEngine, _ body: @escaping (PostgresTransaction) async throws -> Void
    ) async -> (HangarError?, Duration) {
        let start = ContinuousClock.now
        var stopped: Int32?
        var failure: HangarError?
        do {
            try await engine.withTransaction(.write) { transaction in
                try await body(transaction)
                let pid = try await transaction.scalar("SELECT pg_backend_pid()", as: Int32.self) ?? 0
                #expect(pid > 0 && kill(pid, SIGSTOP) == 0)
                stopped = pid
            }
        } catch {
            failure = error as? HangarError ?? HangarError(.database, "untyped: \(error)")
        }
        let elapsed = ContinuousClock.now - start
        if let stopped { kill(stopped, SIGCONT) }
        return (failure, elapsed)
    }

    @Test func aStatementUnansweredPastTheDeadlineIsConnectionLostAndThePoolRecovers() async throws {
        let engine = try PostgresEngine(configuration: try Self.configuration("deadline"))
        try await engine.prepareSchema()
        // A change is recorded: its pending rows' statement, just before COMMIT, meets the stopped backend.
        let (error, elapsed) = await Self.runStopped(engine) { transaction in
            try await insertDocument("stopped", in: transaction)
            recordSave("stopped", in: transaction)
        }
        #expect(error?.code == .connectionLost, "\(String(describing: error))")
        #expect(elapsed < Self.deadline + .seconds(10), "\(elapsed)")
        // Nothing was written, and the pool serves the next transaction on another connection.
        let count = try await engine.withTransaction(.read) { transaction in
            try await transaction.scalar(transaction.sql.documents.countDocuments, binds("pilots"), as: Int64.self)
        }
        #expect(count == 0)
        await engine.close()
        try await Self.dropSchema(of: engine.configuration)
    }

    @Test func aCommitUnansweredPastTheDeadlineIsOutcomeUnknown() async throws {
        let engine = try PostgresEngine(configuration: try Self.configuration("deadlinecommit"))
        try await engine.prepareSchema()
        // No change recorded: the statement after the stop is COMMIT itself.
        let (error, elapsed) = await Self.runStopped(engine) { transaction in
            try await insertDocument("unknown", in: transaction)
        }
        #expect(error?.code == .outcomeUnknown, "\(String(describing: error))")
        #expect(elapsed < Self.deadline + .seconds(10), "\(elapsed)")
        await engine.close()
        try await Self.dropSchema(of: engine.configuration)
    }

    /// 8 writers save while the server ends their sessions at random moments (20 rounds): every call answers
    /// (a revision, ``HangarError/Code/connectionLost``, ``HangarError/Code/outcomeUnknown`` or
    /// ``HangarError/Code/timeout``) within the acquire timeout plus the deadline of each of its statements.
    @Test func terminatedSessionsUnderLoadAnswerEveryCallWithinTheBound() async throws {
        let name = uniqueApplicationName("bound")
        let configuration = try Self.configuration("bound", applicationName: name)
        let store = try await PostgresStore(configuration: configuration)
        let admin = try PostgresEngine(configuration: try testConfiguration("boundadmin"))
        let stop = Flag()
        // BEGIN, key lock, current row, history, write, pending changes, COMMIT, numbering: 8 statements at most.
        let bound = configuration.acquireTimeout + configuration.answerDeadline * 8
        let results = try await withThrowingTaskGroup(of: (Duration, [String: Int]).self) { group in
            for writer in 0..<8 {
                group.addTask {
                    var longest = Duration.zero
                    var outcomes: [String: Int] = [:]
                    var number = 0
                    while !stop.isSet {
                        number += 1
                        let start = ContinuousClock.now
                        do {
                            try await store.write { transaction in
                                try await transaction.save(
                                    envelope: faultEnvelope(
                                        writer: "b\(writer)", number: number, key: "k", revision: 0),
                                    key: "b\(writer)-\(number % 3)", in: "ledger")
                            }
                            outcomes["saved", default: 0] += 1
                        } catch let error as HangarError {
                            outcomes[error.code.description, default: 0] += 1
                        } catch {
                            outcomes["untyped", default: 0] += 1
                        }
                        longest = max(longest, ContinuousClock.now - start)
                    }
                    return (longest, outcomes)
                }
            }
            group.addTask {
                for _ in 0..<20 {
                    try await Task.sleep(for: .milliseconds(Int.random(in: 20...80)))
                    _ = try await PostgresFaultTests.terminate(name, through: admin)
                }
                // Quiet for a moment: the pool connects again and saves go through.
                try await Task.sleep(for: .milliseconds(500))
                stop.set()
                return (.zero, [:])
            }
            var all: [(Duration, [String: Int])] = []
            for try await result in group { all.append(result) }
            return all
        }
        await admin.close()
        var outcomes: [String: Int] = [:]
        for (_, counts) in results { outcomes.merge(counts, uniquingKeysWith: +) }
        let longest = results.map(\.0).max() ?? .zero
        #expect(longest <= bound, "\(longest)")
        #expect(
            Set(outcomes.keys).isSubset(of: ["saved", "connectionLost", "outcomeUnknown", "timeout"]), "\(outcomes)")
        print("PostgresDeadlineTests: outcomes \(outcomes), longest call \(longest) (bound \(bound))")
        // The terminations over, the pool connects again and a save goes through (on a loaded machine, the
        // writers may have seen nothing but ended sessions while they lasted).
        let revision = try await store.write { transaction in
            try await transaction.save(
                envelope: faultEnvelope(writer: "after", number: 0, key: "k", revision: 0), key: "after",
                in: "ledger")
        }
        #expect(revision == 1)
        await store.close()
        try await Self.dropSchema(of: store.postgresConfiguration)
    }
}

/// The deadline's and the notification channel's configuration, without a server.
@Suite struct PostgresDeadlineConfigurationTests {
    @Test func theDeadlineIsTheStatementTimeoutPlusFiveSecondsUnlessSetAndMustBePositive() throws {
        var configuration = try PostgresStoreConfiguration(url: "postgres://app@localhost/app")
        configuration.statementTimeout = .seconds(7)
        #expect(configuration.answerDeadline == .seconds(12))
        configuration.statementDeadline = .milliseconds(1_500)
        #expect(configuration.answerDeadline == .milliseconds(1_500))
        configuration.statementDeadline = .zero
        #expect(throws: HangarError.self) { try configuration.makeClientConfiguration() }
    }

    @Test(arguments: ["hangar", String(repeating: "s", count: 48), String(repeating: "s", count: 63)])
    func theNotificationChannelIsAtMost63BytesAndNamesTheSchema(schema: String) throws {
        let channel = PostgresStoreSQL(schema: schema).changes.channel
        #expect(channel.utf8.count <= 63)
        #expect(channel.hasPrefix("hangar_changes_"))
        #expect(channel != PostgresStoreSQL(schema: String(schema.dropLast()) + "t").changes.channel)
    }
}
