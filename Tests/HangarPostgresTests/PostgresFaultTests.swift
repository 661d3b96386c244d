import Foundation
import Hangar
import HangarTestSupport
import Logging
import PostgresNIO
import PropertyList
import Testing

@testable import HangarPostgres

/// Lost connections: the server ends the store's sessions (`pg_terminate_backend`, found by the store's own
/// `application_name`, so no other test's connection is touched) during a burst of writes. Every failure is a
/// typed error (``HangarError/Code/connectionLost``, or ``HangarError/Code/outcomeUnknown`` when lost during
/// `COMMIT`, settled by saving again with the expected revision), the pool connects again (later writes
/// succeed on the same store), and nothing acknowledged is lost.
@Suite(.enabled(if: TestPostgres.shouldRun)) struct PostgresFaultTests {
    /// Ends every session of `applicationName` but the caller's; returns how many.
    static func terminate(_ applicationName: String, through admin: PostgresEngine) async throws -> Int {
        try await admin.withTransaction(.write) { transaction in
            Int(
                try await transaction.scalar(
                    """
                    SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = $1
                    """, binds(applicationName), as: Int64.self) ?? 0)
        }
    }

    /// A store on a fresh schema whose sessions are named `applicationName`, logging to `logger` when given.
    static func openStore(_ label: String, applicationName: String, logger: Logger? = nil) async throws
        -> PostgresStore
    {
        let url = postgresURL(
            try TestPostgres.requireURL(), schema: TestPostgres.uniqueSchemaName(label),
            applicationName: applicationName)
        var configuration = try PostgresStoreConfiguration(url: url, store: stressConfiguration())
        configuration.poolSize = 4
        configuration.connectTimeout = .seconds(15)
        configuration.acquireTimeout = .seconds(30)
        if let logger { configuration.logger = logger }
        return try await PostgresStore(configuration: configuration)
    }

    @Test func terminatedConnectionsGiveTypedErrorsAndThePoolReconnects() async throws {
        let started = Date()
        let name = uniqueApplicationName("lost")
        let store = try await Self.openStore("lost", applicationName: name)
        let admin = try PostgresEngine(configuration: try testConfiguration("lostadmin"))
        let stop = Flag()
        let writers = 4
        let (reports, terminated) = try await withThrowingTaskGroup(of: (FaultWriterReport?, Int).self) { group in
            for writer in 0..<writers {
                group.addTask {
                    let keys = ["w\(writer)a", "w\(writer)b"]
                    return (await runFaultWriter(store, name: "w\(writer)", keys: keys, stop: stop, tail: 10), 0)
                }
            }
            group.addTask {
                // Rounds of terminations at random moments during the burst, then quiet.
                var terminated = 0
                for _ in 0..<20 {
                    try await Task.sleep(for: .milliseconds(Int.random(in: 20...80)))
                    terminated += try await Self.terminate(name, through: admin)
                }
                try await Task.sleep(for: .milliseconds(300))
                stop.set()
                return (nil, terminated)
            }
            var reports: [FaultWriterReport] = []
            var terminated = 0
            for try await (report, count) in group {
                if let report { reports.append(report) }
                terminated += count
            }
            return (reports, terminated)
        }
        await admin.close()
        let (problems, checked) = try await verifyFaultWriters(reports, in: store)
        #expect(problems.isEmpty, "\(problems.prefix(20).joined(separator: "\n"))")
        let writerProblems = reports.flatMap(\.problems)
        #expect(writerProblems.isEmpty, "\(writerProblems.prefix(20).joined(separator: "\n"))")
        var failures: [String: Int] = [:]
        for report in reports { failures.merge(report.failures, uniquingKeysWith: +) }
        #expect(terminated > 0)
        #expect(failures.values.reduce(0, +) > 0, "no write met a terminated connection")
        #expect(Set(failures.keys).isSubset(of: ["connectionLost", "outcomeUnknown"]), "\(failures)")
        #expect(reports.allSatisfy { $0.tailSaves == 10 })
        await store.close()
        try await dropSchema(of: store.postgresConfiguration)
        print(
            "PostgresFaultTests: \(terminated) sessions terminated during \(writers) writers' burst; failures "
                + "\(failures); outcome unknown settled as committed \(reports.map(\.unknownCommitted).reduce(0, +)),"
                + " not committed \(reports.map(\.unknownNotCommitted).reduce(0, +)); \(checked) acknowledged saves "
                + "checked; " + String(format: "%.1f s", Date().timeIntervalSince(started)))
    }

    /// A real loss during `COMMIT`: a deferred trigger (run by `COMMIT`) sleeps, and the session is terminated
    /// while it does. The save is reported as outcome unknown, never as a plain failure nor a success; saving
    /// again with the expected revision settles it (here: it had not committed, so the retry saves it).
    @Test func aConnectionLostDuringCommitIsOutcomeUnknownAndARetryResolvesIt() async throws {
        let name = uniqueApplicationName("commit")
        let recorder = LogRecorder()
        let store = try await Self.openStore("commit", applicationName: name, logger: recorder.logger)
        let schema = store.postgresConfiguration.schema
        let admin = try PostgresEngine(configuration: try testConfiguration("commitadmin"))
        let first = faultEnvelope(writer: "c", number: 1, key: "slow", revision: 1)
        try await store.write { try await $0.save(envelope: first, key: "slow", in: "ledger", expectedRevision: 0) }
        try await admin.withTransaction(.write) { transaction in
            try await transaction.execute(
                """
                CREATE FUNCTION \(schema).slow_commit() RETURNS trigger LANGUAGE plpgsql
                AS $$ BEGIN PERFORM pg_sleep(5); RETURN NULL; END $$
                """)
            try await transaction.execute(
                """
                CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT OR UPDATE ON \(schema).documents
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION \(schema).slow_commit()
                """)
        }
        let second = faultEnvelope(writer: "c", number: 2, key: "slow", revision: 2)
        async let outcome: HangarError? = {
            do {
                try await store.write {
                    try await $0.save(envelope: second, key: "slow", in: "ledger", expectedRevision: 1)
                }
                return nil
            } catch {
                return error as? HangarError ?? HangarError(.database, "untyped: \(error)")
            }
        }()
        // Terminated once the session is in COMMIT (in the deferred trigger's sleep).
        var terminated = 0
        let polling = Date()
        while terminated == 0 && Date().timeIntervalSince(polling) < 30 {
            try await Task.sleep(for: .milliseconds(10))
            terminated = try await admin.withTransaction(.write) { transaction in
                Int(
                    try await transaction.scalar(
                        """
                        SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                        WHERE application_name = $1 AND state = 'active' AND query = 'COMMIT'
                        """, binds(name), as: Int64.self) ?? 0)
            }
        }
        let error = await outcome
        #expect(terminated == 1)
        #expect(error?.code == .outcomeUnknown, "\(String(describing: error))")
        // Logged as an error, with its code: the operator hears of a write that may or may not be stored.
        let unknown = recorder.records("Connection lost during COMMIT: outcome unknown")
        #expect(unknown.count == 1 && unknown.first?.level == .error)
        #expect(unknown.first?.metadata["code"] == HangarError.Code.outcomeUnknown.description)
        try await admin.withTransaction(.write) { transaction in
            try await transaction.execute("DROP TRIGGER slow_commit ON \(schema).documents")
        }
        await admin.close()
        let settled = await resolveUnknownOutcome(store, key: "slow", expectedRevision: 1, envelope: second)
        guard case .notCommittedSavedNow(let revision, _) = settled else {
            Issue.record("the retry did not settle it as not committed: \(settled)")
            await store.close()
            try await dropSchema(of: store.postgresConfiguration)
            return
        }
        #expect(revision == 2)
        let history = try await store.read { try await $0.history(in: "ledger", key: "slow") }
        #expect(history.map(\.revision) == [1, 2])
        await store.close()
        try await dropSchema(of: store.postgresConfiguration)
    }

    /// The other way an unknown outcome turns out, simulated (a loss after the server committed but before its
    /// answer arrived cannot be provoked on demand): the save committed and the caller does not know; saving
    /// again with the same expected revision meets a conflict, and the revision after the expected one is the
    /// save itself, so the caller knows it committed, once.
    @Test func anUnknownOutcomeThatCommittedIsFoundByARetryWithTheExpectedRevision() async throws {
        let store = try await Self.openStore("committed", applicationName: uniqueApplicationName("committed"))
        let envelope = faultEnvelope(writer: "s", number: 1, key: "doc", revision: 1)
        // The save commits; its answer is "lost".
        _ = try? await store.write {
            try await $0.save(envelope: envelope, key: "doc", in: "ledger", expectedRevision: 0)
        }
        let settled = await resolveUnknownOutcome(store, key: "doc", expectedRevision: 0, envelope: envelope)
        guard case .committed(let revision, _) = settled else {
            Issue.record("the retry did not find the committed save: \(settled)")
            await store.close()
            try await dropSchema(of: store.postgresConfiguration)
            return
        }
        #expect(revision == 1)
        let history = try await store.read { try await $0.history(in: "ledger", key: "doc") }
        #expect(history.map(\.revision) == [1])
        await store.close()
        try await dropSchema(of: store.postgresConfiguration)
    }
}
