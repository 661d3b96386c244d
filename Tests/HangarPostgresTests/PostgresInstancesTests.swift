import Foundation
import Hangar
import HangarPostgres
import HangarTestSupport
import Testing

/// Many instances, one server: real child processes (`hangar-stress save-loop --url` and `feed-loop --url`)
/// write the same documents of one store at once, with expected revisions; afterwards every acknowledged save
/// is there, every document's revisions are contiguous and exactly its acknowledged saves, and the change feed
/// holds each of them exactly once, in commit order, with contiguous sequences.
@Suite(.enabled(if: TestPostgres.shouldRun)) struct PostgresInstancesTests {
    /// Transactions per child.
    static let transactions = 60

    @Test func fourSaveLoopsAndTwoFeedLoopsShareOneStoreAndLoseNothing() async throws {
        let started = Date()
        let schema = TestPostgres.uniqueSchemaName("instances")
        let url = postgresURL(
            try TestPostgres.requireURL(), schema: schema, applicationName: uniqueApplicationName("instances"))
        var configuration = stressConfiguration()
        configuration.collections["feed"] = CollectionOptions()
        // Created here first, so the children open a ready schema (creating it at once is tested elsewhere).
        let store = try await PostgresStore(url: url, store: configuration)
        do {
            try await run(store, url: url, started: started)
        } catch {
            await store.close()
            try? await dropSchema(of: store.postgresConfiguration)
            throw error
        }
        await store.close()
        try await dropSchema(of: store.postgresConfiguration)
    }

    private func run(_ store: PostgresStore, url: String, started: Date) async throws {
        let directory = try temporaryTestDirectory("instances")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let seed = UInt64.random(in: 1...UInt64.max)
        print("PostgresInstancesTests: seed \(seed)")
        var random = SeededGenerator(seed: seed)
        let arguments: [[String]] =
            (0..<4).map { ["save-loop", "--url", url, "p\($0)", "\(random.next())", "\(Self.transactions)"] }
            + (0..<2).map { _ in ["feed-loop", "--url", url, "\(random.next())", "\(Self.transactions)"] }
        let children = try arguments.enumerated().map { index, arguments in
            try ChildProcess(arguments, stderrPath: "\(directory)/stderr-\(index).txt")
        }
        var outputs: [[String]] = []
        for child in children {
            let status = await offThread { child.waitForExit() }
            let lines = await offThread { child.completeLines() }
            #expect(status == 0, "a child failed: \(child.standardError)")
            #expect(lines.last?.hasPrefix("done ") == true, "a child did not finish: \(child.standardError)")
            outputs.append(lines)
        }
        let retries = outputs.compactMap { $0.last.flatMap { Int($0.dropFirst("done ".count)) } }

        // Every acknowledged save, byte for byte; histories contiguous; no transaction half there.
        var checker = SaveLoopChecker()
        for lines in outputs.prefix(4) { try checker.record(lines) }
        let snapshot = try await SaveLoopChecker.snapshot(of: store)
        let problems = checker.verify(snapshot)
        #expect(problems.isEmpty, "\(problems.prefix(20).joined(separator: "\n"))")
        // Every child ended by itself, so every committed save was acknowledged: a document's current revision
        // is exactly its number of acknowledged saves.
        #expect(checker.committedUnacknowledged == 0)
        #expect(checker.acknowledgedWrites == 4 * Self.transactions)
        var acknowledgedPerDocument: [String: Int] = [:]
        for revision in checker.acknowledged.keys {
            acknowledgedPerDocument["\(revision.collection)/\(revision.key)", default: 0] += 1
        }
        #expect(acknowledgedPerDocument == snapshot.currentRevisions)

        let changes = try await store.changes(since: 0)
        let feedProblems = Self.checkFeed(
            changes, saveLoops: Array(outputs.prefix(4)), feedLoops: Array(outputs.suffix(2)))
        #expect(feedProblems.isEmpty, "\(feedProblems.prefix(20).joined(separator: "\n"))")
        print(
            "PostgresInstancesTests: 6 processes, \(checker.acknowledgedSaves) acknowledged saves checked, "
                + "\(changes.count) changes in the feed, retries per process \(retries), "
                + String(format: "%.1f s", Date().timeIntervalSince(started)))
    }

    /// The feed against what the children acknowledged: sequences 1, 2, 3, …; each acknowledged change exactly
    /// once and nothing else; a document's revisions in sequence order; each child's changes in the order it
    /// committed them.
    static func checkFeed(_ changes: [Change], saveLoops: [[String]], feedLoops: [[String]]) -> [String] {
        var problems: [String] = []
        if changes.map(\.sequence) != Array(stride(from: 1, through: changes.count, by: 1)) {
            problems.append("the sequences are not 1...\(changes.count)")
        }
        func name(_ change: Change) -> String {
            "\(change.collection)/\(change.key)@\(change.revision):\(change.kind.rawValue)"
        }
        var inFeed: [String: [Int]] = [:]
        for change in changes { inFeed[name(change), default: []].append(change.sequence) }
        // Acknowledged: a save loop's `ack TX c/k@r=HEX …`, a feed loop's `ack c/k@r:kind …`.
        var acknowledged: [String: Int] = [:]
        var perChild: [[String]] = []
        for lines in saveLoops + feedLoops {
            var order: [String] = []
            for line in lines where line.hasPrefix("ack ") {
                let fields = line.split(separator: " ").dropFirst()
                let members =
                    fields.first?.contains("@") == true
                    ? fields.map(String.init)
                    : fields.dropFirst().map { String($0.split(separator: "=")[0]) + ":save" }
                for member in members { acknowledged[member, default: 0] += 1 }
                order += members
            }
            perChild.append(order)
        }
        for (member, count) in acknowledged where inFeed[member]?.count != count {
            problems.append("\(member): acknowledged \(count) times, in the feed \(inFeed[member]?.count ?? 0)")
        }
        for member in inFeed.keys where acknowledged[member] == nil {
            problems.append("\(member): in the feed, never acknowledged")
        }
        // Commit order: a save-loop member is unique, so its sequence is known; one child's are increasing.
        for order in perChild.prefix(saveLoops.count) {
            let sequences = order.compactMap { inFeed[$0]?.first }
            if sequences != sequences.sorted() { problems.append("a child's changes are not in its commit order") }
        }
        var lastRevision: [String: Int] = [:]
        for change in changes where change.collection != "feed" {
            let document = "\(change.collection)/\(change.key)"
            if let last = lastRevision[document], change.revision != last + 1 {
                problems.append("\(document): revision \(change.revision) follows \(last) in the feed")
            }
            lastRevision[document] = change.revision
        }
        return problems
    }
}
