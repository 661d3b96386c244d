// The sync rows (issue 23): Hangar Sync through a real pilots-server (release build) on loopback, clients in this
// process (`SyncReplica` over `HTTPSyncTransport`, SQLite files, synchronous NORMAL as on a device).
//
// - sync-first: the first sync of 10,000 pilots from the server to an empty client (one `sync` pass: a snapshot
//   applied in one local transaction), against `hangar db export` of the server's store + `hangar db import` of
//   the files into an empty client store (two processes, the release `hangar`).
// - sync-latency: two replicas following the server (`SyncReplica.follow`, the event stream); the time from just
//   before a save on one to the moment the other's store has it (its local change feed), a few hundred samples.
// - sync-push: 1,000 queued local edits pushed by one `sync` pass, against 1,000 `PUT`s of the same bodies over one
//   keep-alive connection (URLSession, one at a time).
import Foundation
import Hangar
import HangarSQLite
import HangarSync
import PropertyList
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The operations of this section, for `--filter`.
enum SyncOperation: String, CaseIterable {
    case first = "sync-first"
    case latency = "sync-latency"
    case push = "sync-push"
}

/// The sizes of a run.
struct SyncPlan {
    var pilots: Int
    var runs: Int
    var samples: Int
    var edits: Int

    static let full = SyncPlan(pilots: 10_000, runs: 3, samples: 300, edits: 1_000)
    static let quick = SyncPlan(pilots: 1_000, runs: 1, samples: 40, edits: 200)
}

func runSyncSection(options: Options) throws {
    let operations = SyncOperation.allCases.filter { options.includes(operationNamed: $0.rawValue) }
    guard !operations.isEmpty else { return }
    let server = ServerExecutables.pilotsServer
    guard FileManager.default.isExecutableFile(atPath: server) else {
        print("\n*** SKIPPED: the sync rows: no release pilots-server at \(server) (or $PILOTS_SERVER_BIN) ***")
        return
    }
    let plan = options.quick ? SyncPlan.quick : .full
    let scratch = try ScratchFolder("sync")
    defer { scratch.remove() }
    let directory = scratch.path
    var lines: [String] = []
    func say(_ line: String) {
        print(line)
        fflush(nil)
        lines.append(line)
    }
    let start = ContinuousClock.now
    let bodies = try pilotBodies(count: plan.pilots)
    say("\n## Sync rows (hangar-bench --filter sync) - \(Date())")
    say("command: \(CommandLine.arguments.joined(separator: " "))")
    say("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores; load average before: \(loadAverage())")
    say(
        "\(plan.pilots) pilots from the pilots dataset as Pilot 2.0 documents (binary plist, mean "
            + "\(bodies.reduce(0) { $0 + $1.count } / bodies.count) bytes); pilots-server \(server); clients in "
            + "process: SyncReplica over HTTPSyncTransport (URLSession), SQLite files, synchronous NORMAL")
    var engines: [(name: String, arguments: [String], exportArguments: [String]?)] = [
        ("SQLite", ["--db", directory + "/server.sqlite"], ["--db", directory + "/server.sqlite"])
    ]
    var postgres: PostgresBenchServer?
    if let url = postgresBenchURL() {
        let created = try PostgresBenchServer(url: url)
        postgres = created
        engines.append(("PostgreSQL", ["--url", url, "--schema", created.schema("sync_bench")], nil))
    } else {
        say("*** SKIPPED: the PostgreSQL server: HANGAR_BENCH_POSTGRES_URL or HANGAR_TEST_POSTGRES_URL is not set ***")
    }
    defer { postgres?.finish() }
    for engine in engines {
        let process = try ServerProcess(
            name: "pilots-server", executable: server, arguments: engine.arguments + ["--log-level", "warning"],
            logPath: directory + "/server-\(engine.name).log")
        defer { process.stop() }
        guard let url = URL(string: process.url) else { throw ServerSetupError("bad URL \(process.url)") }
        let bench = SyncBench(url: url, directory: directory + "/" + engine.name, bodies: bodies, plan: plan)
        try FileManager.default.createDirectory(atPath: bench.directory, withIntermediateDirectories: true)
        say("\n### \(engine.name) server")
        let seeded = try bench.seed()
        say("seed: \(plan.pilots) pilots pushed by one replica's first pass in \(fixed(seeded, 2)) s")
        for operation in operations {
            switch operation {
            case .first: for line in try bench.firstSync(export: engine.exportArguments) { say(line) }
            case .latency: for line in try bench.latency() { say(line) }
            case .push: for line in try bench.push() { say(line) }
            }
        }
    }
    say("\nsync rows: \(elapsed(since: start)); load average after: \(loadAverage())")
    guard !options.quick else {
        print("(--quick: the results file is not written)")
        return
    }
    let path = BenchPaths.benchmarks + "/Results/\(utcDay())-sync.txt"
    try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    print("written: \(path)")
}

/// Today (UTC) as YYYY-MM-DD.
func utcDay() -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
    let day = calendar.dateComponents([.year, .month, .day], from: Date())
    return [day.year ?? 0, day.month ?? 0, day.day ?? 0].map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: "-")
}

/// One server's sync rows.
struct SyncBench: Sendable {
    let url: URL
    let directory: String
    let bodies: [[UInt8]]
    let plan: SyncPlan

    static let collection = "pilots"

    /// An empty client store at `name`.
    func client(_ name: String) throws -> SQLiteStore {
        let path = directory + "/\(name).sqlite"
        removeDatabase(at: path)
        var configuration = SQLiteStoreConfiguration(path: path)
        configuration.synchronous = .normal
        return try SQLiteStore(configuration: configuration)
    }

    func replica(_ store: SQLiteStore) -> SyncReplica<SQLiteStore> {
        SyncReplica(store: store, transport: HTTPSyncTransport(baseURL: url))
    }

    static func key(_ index: Int) -> String { "pilot-\(index)" }

    /// Fills the server: a client saves every pilot, then one pass pushes them; seconds taken by the pass.
    func seed() throws -> Double {
        let store = try client("seed")
        let documents = try bodies.map { try PropertyList(binary: $0) }
        try store.write { writer in
            for (index, document) in documents.enumerated() {
                try writer.save(envelope: document, key: Self.key(index), in: Self.collection)
            }
        }
        let replica = replica(store)
        let started = ContinuousClock.now
        let report = try waitFor { try await replica.sync(Self.collection) }
        let seconds = seconds(since: started)
        guard report.pushed == bodies.count else {
            throw ServerSetupError(
                "the seed pushed \(report.pushed) of \(bodies.count): \(report.rejected.first as Any)")
        }
        return seconds
    }

    /// (a) The first sync into an empty client against export + import.
    func firstSync(export: [String]?) throws -> [String] {
        var syncs: [Double] = []
        for run in 0..<plan.runs {
            let store = try client("first-\(run)")
            let replica = replica(store)
            let started = ContinuousClock.now
            let report = try waitFor { try await replica.sync(Self.collection) }
            syncs.append(seconds(since: started))
            guard report.pulled == bodies.count else {
                throw ServerSetupError("the first sync pulled \(report.pulled) of \(bodies.count)")
            }
        }
        var lines = [
            "sync-first: first sync of \(bodies.count) pilots to an empty client (one pass): "
                + runsText(syncs)
        ]
        guard let export, let hangar = locateHangarExecutable() else {
            lines.append("  export + import: SKIPPED (no release hangar, or no file for this engine)")
            return lines
        }
        var peers: [Double] = []
        for run in 0..<plan.runs {
            let folder = directory + "/export-\(run)"
            try? FileManager.default.removeItem(atPath: folder)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let target = directory + "/import-\(run).sqlite"
            removeDatabase(at: target)
            let started = ContinuousClock.now
            let exported = try runChild(hangar, ["db", "export"] + export + [Self.collection, folder])
            guard exported.status == 0 else { throw ServerSetupError("hangar db export failed") }
            let files = try FileManager.default.contentsOfDirectory(atPath: folder).map { folder + "/" + $0 }
            let imported = try runChild(hangar, ["db", "import", "--db", target, Self.collection] + files)
            guard imported.status == 0 else { throw ServerSetupError("hangar db import failed") }
            peers.append(seconds(since: started))
            guard files.count == bodies.count else {
                throw ServerSetupError("hangar db export wrote \(files.count) files")
            }
        }
        lines.append("  hangar db export + hangar db import (two processes): " + runsText(peers))
        lines.append(
            "  first sync / (export + import), medians: \(fixed(median(syncs) / median(peers), 2))x")
        return lines
    }

    /// (b) Save on one following replica to arrival on another following replica.
    func latency() throws -> [String] {
        let sender = try client("sender")
        let receiver = try client("receiver")
        let samples = plan.samples
        let replicas = [replica(sender), replica(receiver)]
        let delays = try waitFor { () async throws -> [Int64] in
            let arrivals = Arrivals()
            // Both in step first (each has synced the collection once), so the watch below sees only the samples.
            for replica in replicas { _ = try await replica.sync(Self.collection) }
            let start = try await receiver.read { try $0.lastChangeSequence() }
            let watching = Task {
                for try await change in receiver.follow(after: start, in: Self.collection) {
                    guard
                        let body = try await receiver.read({
                            try $0.document(in: change.collection, key: change.key)
                        }),
                        let index = try body.envelope()["sample"]?.integerValue?.exactly(Int.self)
                    else { continue }
                    arrivals.arrived(index)
                }
            }
            let following = replicas.map { replica in
                Task { try await replica.follow(Self.collection) }
            }
            defer {
                watching.cancel()
                for task in following { task.cancel() }
            }
            try await Task.sleep(for: .milliseconds(500))  // Both streams open.
            let template = try PropertyList(binary: bodies[0])
            var delays: [Int64] = []
            for index in 0..<(samples + 10) {
                let document = setting("sample", .integer(.init(index)), in: template)
                let started = monotonicNanoseconds()
                arrivals.expect(index, at: started)
                try await sender.write {
                    _ = try await $0.save(envelope: document, key: "latency-\(index % 20)", in: Self.collection)
                }
                guard let delay = try await arrivals.wait(for: index, timeout: .seconds(30)) else {
                    throw ServerSetupError("save \(index) did not arrive on the other replica within 30 s")
                }
                if index >= 10 { delays.append(delay) }  // The first ten warm the connections.
                try await Task.sleep(for: .milliseconds(5))
            }
            return delays
        }
        return [
            "sync-latency: save on one following replica to its arrival in another's store, through pilots-server: "
                + latencySummary(delays, unit: ("ms", 1_000_000))
        ]
    }

    /// (c) 1,000 queued local edits pushed by one pass, against as many PUTs over one connection.
    func push() throws -> [String] {
        let store = try client("pusher")
        let replica = replica(store)
        _ = try waitFor { try await replica.sync(Self.collection) }
        let edits = min(plan.edits, bodies.count)
        var passes: [Double] = []
        var puts: [Double] = []
        for round in 0..<plan.runs {
            try store.write { writer in
                for index in 0..<edits {
                    let document = setting(
                        "homeAirfield", .string("E\(round)\(index % 100)"), in: try PropertyList(binary: bodies[index]))
                    _ = try writer.save(envelope: document, key: Self.key(index), in: Self.collection)
                }
            }
            let started = ContinuousClock.now
            let report = try waitFor { try await replica.sync(Self.collection) }
            passes.append(seconds(since: started))
            guard report.pushed == edits, report.conflicts == 0 else {
                throw ServerSetupError(
                    "the push pass pushed \(report.pushed) of \(edits), \(report.conflicts) conflicts")
            }
            puts.append(try putOneByOne(edits, round: round))
            // The PUTs moved the server past the pusher's bases: in step again before the next round's edits.
            _ = try waitFor { try await replica.sync(Self.collection) }
        }
        let pass = median(passes)
        let put = median(puts)
        return [
            "sync-push: \(edits) queued local edits pushed by one pass (\(edits / 200 + (edits % 200 == 0 ? 0 : 1)) "
                + "push requests): \(runsText(passes)) = \(fixed(Double(edits) / pass, 0)) edits/s",
            "  \(edits) PUTs of the same bodies, one at a time over one keep-alive connection: \(runsText(puts)) = "
                + "\(fixed(Double(edits) / put, 0)) PUTs/s",
            "  push pass / PUTs, medians: \(fixed(pass / put, 2))x (below 1: the pass is faster)",
        ]
    }

    /// Seconds to PUT `count` pilots (binary plist, unconditional), each waiting for the previous answer.
    func putOneByOne(_ count: Int, round: Int) throws -> Double {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 1
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        var requests: [URLRequest] = []
        for index in 0..<count {
            let document = setting(
                "homeAirfield", .string("P\(round)\(index % 100)"), in: try PropertyList(binary: bodies[index]))
            var request = URLRequest(url: url.appendingPathComponent("pilots").appendingPathComponent(Self.key(index)))
            request.httpMethod = "PUT"
            request.httpBody = Data(try document.encoded(as: .binary))
            request.setValue("application/x-plist", forHTTPHeaderField: "Content-Type")
            request.setValue("application/x-plist", forHTTPHeaderField: "Accept")
            requests.append(request)
        }
        let prepared = requests
        return try waitFor {
            let started = ContinuousClock.now
            for request in prepared {
                let (_, response) = try await session.data(for: request)
                guard let status = (response as? HTTPURLResponse)?.statusCode, status == 200 || status == 201 else {
                    throw ServerSetupError("a PUT answered \(String(describing: response))")
                }
            }
            return seconds(since: started)
        }
    }
}

/// Which latency sample arrived when: the sender registers each sample's start, the receiver's feed its arrival.
final class Arrivals: Sendable {
    struct State {
        var started: [Int: Int64] = [:]
        var delays: [Int: Int64] = [:]
    }

    let state = Mutex(State())

    func expect(_ index: Int, at start: Int64) { state.withLock { $0.started[index] = start } }

    func arrived(_ index: Int) {
        let now = monotonicNanoseconds()
        state.withLock { state in
            guard let start = state.started[index], state.delays[index] == nil else { return }
            state.delays[index] = now - start
        }
    }

    /// The delay of sample `index` once it arrived, checking every 0.2 ms; nil after `timeout`.
    func wait(for index: Int, timeout: Duration) async throws -> Int64? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let delay = state.withLock({ $0.delays[index] }) { return delay }
            try await Task.sleep(for: .microseconds(200))
        }
        return nil
    }
}

func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted[sorted.count / 2]
}

/// Runs as text: the median, and every run in seconds.
func runsText(_ values: [Double]) -> String {
    "median \(fixed(median(values), 3)) s (runs: \(values.map { fixed($0, 3) }.joined(separator: ", ")))"
}

/// `document` with `key` set to `value` (a dictionary; anything else unchanged).
func setting(_ key: String, _ value: PropertyList, in document: PropertyList) -> PropertyList {
    guard case .dictionary(var entries) = document else { return document }
    entries[key] = value
    return .dictionary(entries)
}
