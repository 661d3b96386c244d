import Foundation
import Hangar
import HangarTestSupport
import PropertyList
import Testing

@testable import HangarPostgres

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// kill -9 of clients mid-transaction: two real child processes (`hangar-stress save-loop --url`) write the same
/// documents of one store, in 1- and 3-document transactions, and are killed with SIGKILL at random moments
/// (seeded). After each kill: the killed clients' sessions (and so their locks) are gone within a bound (the
/// server ends a killed client's session when its socket closes), a new client then writes every one of those
/// documents, no transaction is half visible (nor was while they wrote), and every acknowledged save is there,
/// byte for byte.
@Suite(.enabled(if: TestPostgres.shouldRun)) struct PostgresKillTests {
    /// Rounds of kills (two children each): 12 in `swift test`, more with HANGAR_POSTGRES_KILLS.
    static let rounds = ProcessInfo.processInfo.environment["HANGAR_POSTGRES_KILLS"].flatMap { Int($0) } ?? 12
    /// The random moments come from this seed (printed; settable with HANGAR_POSTGRES_SEED).
    static let seed =
        ProcessInfo.processInfo.environment["HANGAR_POSTGRES_SEED"].flatMap { UInt64($0) }
        ?? UInt64.random(in: 1...UInt64.max)
    /// How long after a kill the killed clients' sessions, and so their locks, may live on.
    static let lockBound: TimeInterval = 5

    /// Every document the save loop writes.
    static let documents: [(collection: String, key: String)] =
        (0..<12).map { ("ledger", "k\($0)") } + (0..<6).map { ("recent", "r\($0)") }

    @Test func killedClientsLeaveNoHalfWriteNoLockAndLoseNothing() async throws {
        let (base, schema) = (try TestPostgres.requireURL(), TestPostgres.uniqueSchemaName("kill"))
        // The children's sessions have a name of their own, so the test can see when they are gone.
        let childName = uniqueApplicationName("killed")
        let children = ChildSessions(
            url: postgresURL(base, schema: schema, applicationName: childName), applicationName: childName)
        var configuration = try PostgresStoreConfiguration(
            url: postgresURL(base, schema: schema, applicationName: uniqueApplicationName("probe")),
            store: stressConfiguration())
        // The probe waits for the server as long as it must, under any load.
        configuration.statementTimeout = .seconds(30)
        let store = try await PostgresStore(configuration: configuration)
        do {
            try await killRounds(store, children: children)
        } catch {
            await store.close()
            try? await dropSchema(of: configuration)
            throw error
        }
        await store.close()
        try await dropSchema(of: configuration)
    }

    /// The children's URL, with the `application_name` their sessions go by.
    struct ChildSessions {
        let url: String
        let applicationName: String
    }

    private func killRounds(_ store: PostgresStore, children sessions: ChildSessions) async throws {
        let url = sessions.url
        let started = Date()
        let directory = try temporaryTestDirectory("kill")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var checker = SaveLoopChecker()
        var random = SeededGenerator(seed: Self.seed)
        var slowestProbe: TimeInterval = 0
        var slowestEnd: TimeInterval = 0
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
                try await Task.sleep(for: .milliseconds(50 + Int(random.next() % 200)))
                // While they write (every third round: a whole snapshot takes a while), a reader never sees a
                // transaction half there (a checker of its own: nothing is acknowledged yet; the snapshot's
                // transactions and histories are checked).
                // The sessions the bound is checked on are there (named as the test thinks).
                #expect(try await Self.sessions(sessions.applicationName, store: store) > 0)
                if round % 3 == 1 {
                    var live = SaveLoopChecker()
                    let seenWhileWriting = live.verify(try await SaveLoopChecker.snapshot(of: store))
                    #expect(seenWhileWriting.isEmpty, "round \(round): \(seenWhileWriting.prefix(20))")
                }
                try await Task.sleep(for: .milliseconds(Int(random.next() % 200)))
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
            // No lock outlives its process beyond the bound: the sessions end, then a new client writes every
            // document (its time is the server's, under whatever load the machine has).
            let ended = try await Self.waitUntilGone(sessions.applicationName, store: store)
            slowestEnd = max(slowestEnd, ended)
            #expect(ended < Self.lockBound, "round \(round) (seed \(Self.seed)): sessions lived \(ended) s on")
            let probeStarted = Date()
            let probe = try await Self.probe(store, transactionID: "probe-\(round)")
            slowestProbe = max(slowestProbe, Date().timeIntervalSince(probeStarted))
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
                + "committed but unacknowledged; killed sessions gone after at most "
                + String(
                    format: "%.3f s, slowest probe write of all documents %.3f s, %.1f s in all", slowestEnd,
                    slowestProbe, Date().timeIntervalSince(started)))
    }

    /// How many sessions named `applicationName` the server has.
    static func sessions(_ applicationName: String, store: PostgresStore) async throws -> Int {
        try await store.engine.withTransaction(.read) { transaction in
            Int(
                try await transaction.scalar(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", binds(applicationName),
                    as: Int64.self) ?? 0)
        }
    }

    /// Waits until no session named `applicationName` is left (at most twice the bound); returns how long it took.
    static func waitUntilGone(_ applicationName: String, store: PostgresStore) async throws -> TimeInterval {
        let started = Date()
        while try await sessions(applicationName, store: store) > 0, Date().timeIntervalSince(started) < 2 * lockBound {
            try await Task.sleep(for: .milliseconds(10))
        }
        return Date().timeIntervalSince(started)
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
