import Foundation
import Hangar
import HangarPostgres
import HangarTestSupport
import Testing

/// Server crash: a PostgreSQL server of the test's own (the shared one is never restarted) is restarted with
/// `pg_ctl restart -m immediate` (no shutdown checkpoint: recovery from the WAL) twice during a load of writers
/// on one store. Every acknowledged save is there after recovery, every failure was typed, and the same store
/// (no reopening) writes again afterwards.
@Suite struct PostgresServerCrashTests {
    @Test func acknowledgedSavesSurviveImmediateRestartsAndClientsRecover() async throws {
        guard PrivatePostgresServer.binaries != nil else {
            if TestPostgres.isRequired {
                Issue.record("HANGAR_REQUIRE_POSTGRES=1 but the PostgreSQL programs (initdb, pg_ctl) are missing")
            } else {
                FileHandle.standardError.write(
                    Data(
                        ("WARNING: PostgresServerCrashTests SKIPPED: no PostgreSQL programs (initdb) on PATH or in "
                            + "/usr/lib/postgresql/*/bin\n").utf8))
            }
            return
        }
        let directory = try temporaryTestDirectory("crash")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await offThread { Result { try PrivatePostgresServer(in: directory) } }.get()
        defer { server.stop() }
        try await runLoad(on: server)
    }

    private func runLoad(on server: PrivatePostgresServer) async throws {
        let started = Date()
        var configuration = try PostgresStoreConfiguration(
            url: server.url + "?application_name=hangar_crash", schema: "crash", store: stressConfiguration())
        configuration.poolSize = 4
        // A restarting server refuses connections at once; the timeouts only bound a loaded machine's slow
        // start-up (CI ran this at a load of 18, where a fresh server's first connection took over 2 s).
        configuration.connectTimeout = .seconds(15)
        configuration.acquireTimeout = .seconds(60)
        let store = try await phase("opening the store") { try await PostgresStore(configuration: configuration) }
        let stop = Flag()
        let restarts = 2
        let reports = try await withThrowingTaskGroup(of: FaultWriterReport?.self) { group in
            for writer in 0..<3 {
                group.addTask {
                    await runFaultWriter(
                        store, name: "c\(writer)", keys: ["c\(writer)a", "c\(writer)b"], stop: stop, tail: 10)
                }
            }
            group.addTask {
                for _ in 0..<restarts {
                    try await Task.sleep(for: .milliseconds(Int.random(in: 300...600)))
                    try await phase("restarting the server") {
                        try await offThread { Result { try server.restartImmediately() } }.get()
                    }
                }
                try await Task.sleep(for: .milliseconds(300))
                stop.set()
                return nil
            }
            var reports: [FaultWriterReport] = []
            for try await report in group {
                if let report { reports.append(report) }
            }
            return reports
        }
        let (problems, checked) = try await phase("reading back after recovery") {
            try await verifyFaultWriters(reports, in: store)
        }
        #expect(problems.isEmpty, "\(problems.prefix(20).joined(separator: "\n"))")
        let writerProblems = reports.flatMap(\.problems)
        #expect(writerProblems.isEmpty, "\(writerProblems.prefix(20).joined(separator: "\n"))")
        var failures: [String: Int] = [:]
        for report in reports { failures.merge(report.failures, uniquingKeysWith: +) }
        #expect(Set(failures.keys).isSubset(of: ["connectionLost", "outcomeUnknown"]), "\(failures)")
        #expect(reports.allSatisfy { $0.tailSaves == 10 })
        await store.close()
        print(
            "PostgresServerCrashTests: \(restarts) immediate restarts under 3 writers; failures \(failures); outcome "
                + "unknown settled as committed \(reports.map(\.unknownCommitted).reduce(0, +)), not committed "
                + "\(reports.map(\.unknownNotCommitted).reduce(0, +)); \(checked) acknowledged saves checked after "
                + "recovery; " + String(format: "%.1f s", Date().timeIntervalSince(started)))
    }

    /// Runs `body`; a failure says which step of the test it was in.
    private func phase<Value: Sendable>(
        _ name: String, _ body: () async throws -> sending Value
    ) async throws -> sending Value {
        do {
            return try await body()
        } catch {
            throw PhaseFailure(phase: name, error: error)
        }
    }
}

/// A failure of ``PostgresServerCrashTests``, with the step it happened in.
private struct PhaseFailure: Error, CustomStringConvertible {
    let phase: String
    let error: any Error
    var description: String { "while \(phase): \(error)" }
}
