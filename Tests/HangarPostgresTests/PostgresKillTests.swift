import Foundation
import Hangar
import HangarPostgres
import HangarTestSupport
import PropertyList
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// kill -9 of clients mid-transaction: two real child processes (`hangar-stress save-loop --url`) write the same
/// documents of one store, in 1- and 3-document transactions, and are killed with SIGKILL at random moments
/// (seeded). After each kill: a new client writes every one of those documents within a bound (no lock outlives
/// its process: the server ends a killed client's session when its socket closes), no transaction is half
/// visible, and every acknowledged save is there, byte for byte.
@Suite(.enabled(if: TestPostgres.shouldRun)) struct PostgresKillTests {
    /// Rounds of kills (two children each): 12 in `swift test`, more with HANGAR_POSTGRES_KILLS.
    static let rounds = ProcessInfo.processInfo.environment["HANGAR_POSTGRES_KILLS"].flatMap { Int($0) } ?? 12
    /// The random moments come from this seed (printed; settable with HANGAR_POSTGRES_SEED).
    static let seed =
        ProcessInfo.processInfo.environment["HANGAR_POSTGRES_SEED"].flatMap { UInt64($0) }
        ?? UInt64.random(in: 1...UInt64.max)
    /// How long after a kill a new client may wait for the killed one's locks.
    static let lockBound: TimeInterval = 5

    /// Every document the save loop writes.
    static let documents: [(collection: String, key: String)] =
        (0..<12).map { ("ledger", "k\($0)") } + (0..<6).map { ("recent", "r\($0)") }

    @Test func killedClientsLeaveNoHalfWriteNoLockAndLoseNothing() async throws {
        let url = postgresURL(
            try TestPostgres.requireURL(), schema: TestPostgres.uniqueSchemaName("kill"),
            applicationName: uniqueApplicationName("kill"))
        var configuration = try PostgresStoreConfiguration(url: url, store: stressConfiguration())
        // The probe must not give up before the bound is checked.
        configuration.statementTimeout = .seconds(30)
        let store = try await PostgresStore(configuration: configuration)
        do {
            try await killRounds(store, url: url)
        } catch {
            await store.close()
            try? await dropSchema(of: configuration)
            throw error
        }
        await store.close()
        try await dropSchema(of: configuration)
    }

    private func killRounds(_ store: PostgresStore, url: String) async throws {
        let started = Date()
        let directory = try temporaryTestDirectory("kill")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var checker = SaveLoopChecker()
        var random = SeededGenerator(seed: Self.seed)
        var slowestProbe: TimeInterval = 0
        var earlyKills = 0
        for round in 0..<Self.rounds {
            let children = try (0..<2).map { index in
                try ChildProcess(
                    ["save-loop", "--url", url, "k\(round)\(index)", "\(random.next())", "0"],
                    stderrPath: "\(directory)/stderr-\(index).txt")
            }
            if random.next() % 6 == 0 {
                // Now and then while a child connects and opens the store.
                earlyKills += 1
                try await Task.sleep(for: .milliseconds(Int(random.next() % 300)))
            } else {
                for child in children {
                    let ready = await offThread { child.waitForFirstLine("ready", timeout: 30) }
                    guard ready else {
                        children.forEach { $0.killAndWait() }
                        Issue.record(
                            "round \(round) (seed \(Self.seed)): a child did not start: \(child.standardError)")
                        return
                    }
                }
                try await Task.sleep(for: .milliseconds(50 + Int(random.next() % 400)))
            }
            // Each at a moment of its own.
            for child in children {
                kill(child.pid, SIGKILL)
                try await Task.sleep(for: .milliseconds(Int(random.next() % 40)))
            }
            for child in children {
                let status = await offThread { child.waitForExit() }
                guard ChildProcess.wasKilled(status) else {
                    Issue.record("round \(round) (seed \(Self.seed)): a child failed: \(child.standardError)")
                    return
                }
                try checker.record(await offThread { child.completeLines() })
            }
            // No lock outlives its process beyond the bound: a new client writes every document.
            let probeStarted = Date()
            let probe = try await Self.probe(store, transactionID: "probe-\(round)")
            let elapsed = Date().timeIntervalSince(probeStarted)
            slowestProbe = max(slowestProbe, elapsed)
            #expect(elapsed < Self.lockBound, "round \(round) (seed \(Self.seed)): the probe waited \(elapsed) s")
            try checker.record([probe])
            let problems = checker.verify(try await SaveLoopChecker.snapshot(of: store))
            guard problems.isEmpty else {
                Issue.record(
                    "after round \(round + 1) (seed \(Self.seed)):\n\(problems.prefix(20).joined(separator: "\n"))")
                return
            }
        }
        #expect(checker.acknowledgedWrites >= Self.rounds)
        #expect(checker.multiDocumentWrites > 0)
        print(
            "PostgresKillTests: \(Self.rounds) rounds of 2 clients killed (\(2 * Self.rounds) kills, \(earlyKills) "
                + "rounds while opening), seed \(Self.seed): \(checker.acknowledgedWrites) acknowledged writes "
                + "(\(checker.multiDocumentWrites) of several documents), \(checker.acknowledgedSaves) acknowledged "
                + "saves (checked \(checker.acknowledgementChecks) times), \(checker.committedUnacknowledged) "
                + "committed but unacknowledged, slowest probe after a kill "
                + String(format: "%.3f s, %.1f s in all", slowestProbe, Date().timeIntervalSince(started)))
    }

    /// One transaction that saves every document the save loop writes, in the loop's format (all members named),
    /// with expected revisions; returns its `ack` line, as a child would print it.
    static func probe(_ store: PostgresStore, transactionID: String) async throws -> String {
        let saved = try await store.write { transaction -> [String] in
            var revisions: [Int] = []
            for document in documents {
                revisions.append(
                    (try await transaction.document(in: document.collection, key: document.key)?.revision ?? 0) + 1)
            }
            let members: [PropertyList] = zip(documents, revisions).map { document, revision in
                .string("\(document.collection)/\(document.key)@\(revision)")
            }
            var saved: [String] = []
            for (document, revision) in zip(documents, revisions) {
                let envelope: PropertyList = .dictionary([
                    "majorVersion": 1, "minorVersion": 0, "tx": .string(transactionID),
                    "key": .string(document.key), "revision": .integer(.init(revision)),
                    "members": .array(members), "payload": .data([]),
                ])
                let stored = try await transaction.save(
                    envelope: envelope, key: document.key, in: document.collection, expectedRevision: revision - 1)
                saved.append(
                    "\(document.collection)/\(document.key)@\(stored)=\(hexString(try envelope.encoded(as: .binary)))")
            }
            return saved
        }
        return "ack \(transactionID) " + saved.joined(separator: " ")
    }
}
