import Foundation
import Hangar
import HangarTestSupport
import PostgresNIO
import PropertyList
import Testing

@testable import HangarPostgres

/// The standbys `Scripts/with-postgres.sh --standbys N [--delay MS]` started: the first synchronous, the last
/// delayed. Without them the replica tests are SKIPPED, loudly, unless `HANGAR_REQUIRE_REPLICAS=1` (CI), when they
/// fail instead.
enum TestReplicas {
    static let environment = ProcessInfo.processInfo.environment
    /// Standby i's URL (from 1).
    static func url(_ index: Int) -> String? { value("HANGAR_TEST_POSTGRES_STANDBY_\(index)_URL") }
    /// Standby i's data folder.
    static func data(_ index: Int) -> String? { value("HANGAR_TEST_POSTGRES_STANDBY_\(index)_DATA") }
    /// How many standbys there are.
    static var count: Int { (value("HANGAR_TEST_POSTGRES_STANDBY_URLS") ?? "").split(separator: " ").count }
    /// The last standby's apply delay, when there is one.
    static var delay: Int? { value("HANGAR_TEST_POSTGRES_DELAY_MS").flatMap(Int.init) }
    /// The primary's own URL (not PgBouncer's).
    static var primaryURL: String? { value("HANGAR_TEST_POSTGRES_PRIMARY_URL") }
    /// pg_ctl as the clusters' owner.
    static var control: String? { value("HANGAR_TEST_POSTGRES_CTL") }

    static var shouldRun: Bool {
        if url(1) != nil || environment["HANGAR_REQUIRE_REPLICAS"] == "1" { return true }
        warnOnce
        return false
    }

    private static let warnOnce: Void = {
        FileHandle.standardError.write(
            Data(
                ("WARNING: no standbys (HANGAR_TEST_POSTGRES_STANDBY_1_URL): the replica tests are SKIPPED (run them "
                    + "with Scripts/with-postgres.sh --standbys 2 --delay 500 swift test --filter PostgresReplica)\n")
                    .utf8))
    }()

    private static func value(_ name: String) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    static func require<Value>(_ value: Value?, _ what: String) throws -> Value {
        guard let value else { throw Missing(description: "HANGAR_REQUIRE_REPLICAS=1 but \(what) is not set") }
        return value
    }

    /// Sends `signal` to the server whose data folder is `data`: its postmaster (`postmaster.pid`'s first line) and
    /// every process it started (their parent in `/proc`); returns how many were signalled.
    @discardableResult
    static func signalServer(in data: String, _ signal: Int32) throws -> Int {
        let lines = try String(contentsOfFile: data + "/postmaster.pid", encoding: .utf8).split(separator: "\n")
        guard let first = lines.first, let postmaster = Int32(first) else {
            throw Missing(description: "\(data)/postmaster.pid names no process")
        }
        var processes = [postmaster]
        for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc") {
            guard let process = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let name = stat.lastIndex(of: ")")
            else { continue }
            // After the name: the state, then the parent's pid.
            let fields = stat[stat.index(after: name)...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == postmaster { processes.append(process) }
        }
        for process in processes { kill(process, signal) }
        return processes.count
    }

    /// Runs `pg_ctl ARGUMENTS` as the clusters' owner; throws when it fails. Not through pipes: a server that
    /// `pg_ctl start` leaves running would hold them open.
    static func control(_ arguments: [String]) throws {
        let errors = NSTemporaryDirectory() + "pg_ctl-\(UInt32.random(in: 0...UInt32.max)).err"
        defer { try? FileManager.default.removeItem(atPath: errors) }
        let child = try ChildProcess(
            arguments, stderrPath: errors, executable: try require(control, "HANGAR_TEST_POSTGRES_CTL"))
        let status = child.waitForExit()
        guard status == 0 else {
            let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw Missing(description: "pg_ctl \(arguments.joined(separator: " ")) failed (\(status)): \(said)")
        }
    }
}

/// Reads spread over streaming replicas, with commit tokens for read-your-writes (``PostgresStoreConfiguration``'s
/// `replicas`, `maximumReplicaLag`, `replicaWait`), on the standbys the harness started.
@Suite(.enabled(if: TestReplicas.shouldRun), .serialized) struct PostgresReplicaTests {
    /// A store on the primary with `replicas` (standby numbers) as its read replicas, once one of them is fit.
    private func withStore(
        replicas: [Int], _ label: String = #function, configure: (inout PostgresStoreConfiguration) -> Void = { _ in },
        _ body: (PostgresStore) async throws -> Void
    ) async throws {
        var configuration = try testConfiguration(label, configure: configure)
        let primary = try TestReplicas.require(TestReplicas.primaryURL, "HANGAR_TEST_POSTGRES_PRIMARY_URL")
        configuration = try PostgresStoreConfiguration(
            url: primary,
            replicas: try replicas.map { try TestReplicas.require(TestReplicas.url($0), "standby \($0)'s URL") },
            schema: configuration.schema)
        configure(&configuration)
        let store = try await PostgresStore(configuration: configuration)
        do {
            // The schema reaches the replicas (the last one `delay` ms late); then they are checked fit.
            try await Task.sleep(for: .milliseconds((TestReplicas.delay ?? 0) + 200))
            try await Self.waitUntil(seconds: 20) { store.engine.replicaSet?.pick() != nil }
            try await body(store)
        } catch {
            await store.close()
            try? await dropSchema(of: configuration)
            throw error
        }
        await store.close()
        try await dropSchema(of: configuration)
    }

    static func waitUntil(seconds: Double, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !(try await condition()) {
            guard ContinuousClock.now < deadline else {
                throw TestReplicas.Missing(description: "not within \(seconds) s")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    static func envelope(_ value: Int) -> PropertyList {
        ["majorVersion": 1, "minorVersion": 0, "value": .integer(.init(value))]
    }

    /// Whether the server a read ran on is a standby.
    static func onStandby(_ reader: PostgresReadTransaction) async throws -> Bool {
        try await reader.transaction.scalar("SELECT pg_is_in_recovery()", as: Bool.self) ?? false
    }

    @Test func tokenedReadsAreNeverOlderThanTheirTokenOnADelayedReplica() async throws {
        let delayed = TestReplicas.count
        let delay = try TestReplicas.require(TestReplicas.delay, "HANGAR_TEST_POSTGRES_DELAY_MS")
        #expect(delay >= 500)
        var staleUntokened = 0
        var servedByReplica = 0
        try await withStore(replicas: [delayed], configure: { $0.replicaWait = .seconds(2) }) { store in
            for round in 1...12 {
                let saved = try await store.saveReturningToken(envelope: Self.envelope(round), key: "k", in: "c")
                #expect(saved.value == round)
                // Untokened: the replica, 500 ms behind, answers what it has.
                let untokened = try await store.document(in: "c", key: "k")
                if (untokened?.revision ?? 0) < round { staleUntokened += 1 }
                // Tokened: never older than the write.
                let read = try await store.read(after: saved.token) { reader in
                    (try await reader.document(in: "c", key: "k")?.revision, try await Self.onStandby(reader))
                }
                #expect(read.value.0 == round, "round \(round): a read with the write's token saw \(read.value.0 ?? 0)")
                #expect(read.token.covers(saved.token))
                if read.value.1 { servedByReplica += 1 }
                let point = try await store.document(in: "c", key: "k", after: saved.token)
                #expect(point.value?.revision == round)
            }
        }
        // The replica really was behind and really served: the guarantee was tested, not bypassed.
        #expect(staleUntokened > 0, "no untokened read was stale: the delayed replica was not read")
        #expect(servedByReplica > 0, "no tokened read waited on the replica (replicaWait 2 s)")
    }

    @Test func tokenedReadsFallBackToThePrimaryAfterTheReplicaWait() async throws {
        let delayed = TestReplicas.count
        _ = try TestReplicas.require(TestReplicas.delay, "HANGAR_TEST_POSTGRES_DELAY_MS")
        try await withStore(replicas: [delayed]) { store in
            for round in 1...10 {
                let saved = try await store.saveReturningToken(envelope: Self.envelope(round), key: "k", in: "c")
                let start = ContinuousClock.now
                let read = try await store.read(after: saved.token) { reader in
                    (try await reader.document(in: "c", key: "k")?.revision, try await Self.onStandby(reader))
                }
                let waited = ContinuousClock.now - start
                #expect(read.value.0 == round)
                // 100 ms on the 500 ms-late replica, then the primary.
                #expect(read.value.1 == false)
                #expect(waited >= .milliseconds(100) && waited < .milliseconds(450), "waited \(waited)")
            }
        }
    }

    @Test func untokenedReadsGoToTheReplica() async throws {
        try await withStore(replicas: [1]) { store in
            try await store.save(envelope: Self.envelope(1), key: "k", in: "c")
            var onStandby = 0
            for _ in 0..<20 {
                if try await store.read({ try await Self.onStandby($0) }) { onStandby += 1 }
            }
            #expect(onStandby == 20)
            // And writes never do: a write on a standby would fail.
            for round in 2...6 {
                #expect(try await store.save(envelope: Self.envelope(round), key: "k", in: "c") == round)
            }
        }
    }

    /// A replica serves no read before it has replayed the schema the store just prepared: a store opened on a
    /// fresh schema reads at once, with the delayed replica its only one, and no read meets "no such table".
    /// (hangar-check found it: a new server's first reads answered 500.)
    @Test func aFreshStoreReadsAtOnceBeforeItsSchemaReachesTheReplica() async throws {
        let last = TestReplicas.count
        var configuration = try testConfiguration(#function)
        configuration = try PostgresStoreConfiguration(
            url: try TestReplicas.require(TestReplicas.primaryURL, "HANGAR_TEST_POSTGRES_PRIMARY_URL"),
            replicas: [try TestReplicas.require(TestReplicas.url(last), "standby \(last)'s URL")],
            schema: configuration.schema)
        let store = try await PostgresStore(configuration: configuration)
        var failures: [String] = []
        let until = ContinuousClock.now + .milliseconds((TestReplicas.delay ?? 0) + 500)
        var reads = 0
        while ContinuousClock.now < until {
            do {
                _ = try await store.read { try await $0.document(in: "c", key: "k") }
                reads += 1
            } catch {
                failures.append("\(error)")
            }
        }
        await store.close()
        try await dropSchema(of: configuration)
        #expect(reads > 0)
        #expect(failures.isEmpty, "\(failures.prefix(3))")
    }

    @Test func theReplicationReportSaysWhatTheSettingsPromise() async throws {
        try await withStore(replicas: [1]) { store in
            let report = try await store.replicationReport()
            #expect(report.first == "replication: synchronous_standby_names = 'standby1', synchronous_commit = on")
            #expect(report.contains("replication: standby standby1: streaming, sync"))
            #expect(
                report.last
                    == "replication: synchronous (on): promoting a synchronous standby loses no acknowledged write")
        }
    }

    /// A replica that stops answering (its server stopped with SIGSTOP: connections open and silent) never fails a
    /// read the primary can serve: a tokened read's replay check meets its deadline, the replica is set aside, and
    /// the primary answers. (hangar-check found it: the check's expired deadline escaped untyped, an HTTP 500.)
    @Test func aReplicaThatStopsAnsweringNeverFailsATokenedRead() async throws {
        let delayed = TestReplicas.count
        let data = try TestReplicas.require(TestReplicas.data(delayed), "standby \(delayed)'s data folder")
        _ = try TestReplicas.require(TestReplicas.delay, "HANGAR_TEST_POSTGRES_DELAY_MS")
        try await withStore(replicas: [delayed]) { store in
            // The delayed replica has not replayed this write: the read must ask it, and it never answers.
            let saved = try await store.saveReturningToken(envelope: Self.envelope(1), key: "k", in: "c")
            #expect(try TestReplicas.signalServer(in: data, SIGSTOP) > 1)
            defer { _ = try? TestReplicas.signalServer(in: data, SIGCONT) }
            let start = ContinuousClock.now
            let read = try await store.document(in: "c", key: "k", after: saved.token)
            #expect(read.value?.revision == 1)
            #expect(store.engine.replicaSet?.pick() == nil, "the silent replica is still in use")
            // Within the check's deadline (maximumReplicaLag, 1 s), and a margin for a loaded machine.
            #expect(ContinuousClock.now - start < .seconds(10))
            let again = try await store.document(in: "c", key: "k", after: read.token)
            #expect(again.value?.revision == 1)
        }
    }

    @Test func aReplicaKilledAndRestartedIsUsedAgain() async throws {
        let data = try TestReplicas.require(TestReplicas.data(1), "standby 1's data folder")
        try await withStore(replicas: [1], configure: { $0.maximumReplicaLag = .milliseconds(500) }) { store in
            try await store.save(envelope: Self.envelope(1), key: "k", in: "c")
            try TestReplicas.control(["-D", data, "-m", "immediate", "-w", "stop"])
            do {
                // The replica down never fails a read the primary can serve.
                for _ in 0..<30 {
                    let revision = try await store.document(in: "c", key: "k")?.revision
                    #expect(revision == 1)
                }
                try await Self.waitUntil(seconds: 5) { store.engine.replicaSet?.pick() == nil }
                #expect(try await store.read({ try await Self.onStandby($0) }) == false)
            } catch {
                try? TestReplicas.control(["-D", data, "-l", data + "/restart.log", "-w", "start"])
                throw error
            }
            try TestReplicas.control(["-D", data, "-l", data + "/restart.log", "-w", "start"])
            try await Self.waitUntil(seconds: 20) { store.engine.replicaSet?.pick() != nil }
            var onStandby = 0
            for _ in 0..<10 {
                if try await store.read({ try await Self.onStandby($0) }) { onStandby += 1 }
            }
            #expect(onStandby == 10)
        }
    }
}

/// ``Hangar/CommitToken``'s text, as `Hangar-Token` carries it, and its order.
@Suite struct CommitTokenTests {
    @Test func tokensTravelAsText() throws {
        let token = CommitToken(changeSequence: 42, walPosition: 0x16_B374_D848)
        #expect(token.description == "42@16/B374D848")
        #expect(CommitToken("42@16/B374D848") == token)
        #expect(CommitToken("42") == CommitToken(changeSequence: 42))
        for bad in ["", "x", "-1", "42@", "42@16", "42@/1", "42@123456789/0", "1@2@3"] {
            #expect(CommitToken(bad) == nil)
        }
        #expect(token.covers(CommitToken(changeSequence: 99, walPosition: 0x16_B374_D847)))
        #expect(!token.covers(CommitToken(changeSequence: 1, walPosition: 0x16_B374_D849)))
    }
}
