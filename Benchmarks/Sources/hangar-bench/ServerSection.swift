import Foundation
import LoadReport
import PropertyList

// The server rows: pilots-server (Hangar's store over Hummingbird) against pilots-baseline-server (the same routes
// written by hand: Codable, PropertyListEncoder/Decoder, a plain table), both real processes on loopback, loaded by
// hangar-load: × {SQLite, PostgreSQL} × {one instance, two instances on the same store, connections round-robin}
// × {GET, conditional update}. The contenders take turns within each configuration; both are seeded with the same
// pilots from the pilots dataset. See README.md, "The server rows".

enum ServerWorkload: String, CaseIterable {
    case get = "server-get"
    case update = "server-update"

    /// The workload's name for hangar-load.
    var loadName: String { self == .get ? "get" : "update" }
    var title: String { self == .get ? "GET" : "GET + PUT If-Match" }
}

struct ServerPlan {
    var pilots: Int
    var connections: Int
    var warmUp: Double
    var duration: Double

    /// 2,000 pilots, 16 connections: the figures measured from outside with plain wrk use the same.
    static let full = ServerPlan(pilots: 2_000, connections: 16, warmUp: 3, duration: 10)
    static let quick = ServerPlan(pilots: 1_000, connections: 16, warmUp: 1, duration: 3)
}

/// One measured configuration of one contender.
struct ServerRow {
    var engine: String
    var instances: Int
    var workload: ServerWorkload
    var contender: String
    var report: LoadReport
    /// wrk's figures for the same configuration, when wrk is on PATH.
    var wrk: WrkReport?
}

/// A contender: its name and executable.
struct ServerContender {
    var name: String
    var executable: String
}

func runServerSection(options: Options) throws {
    let workloads = ServerWorkload.allCases.filter { options.includes(operationNamed: $0.rawValue) }
    guard !workloads.isEmpty else { return }
    let executables: ServerExecutables
    switch ServerExecutables.locate() {
    case .failure(let reason):
        print("\n*** SKIPPED: the server rows: \(reason) ***")
        return
    case .success(let found): executables = found
    }
    let plan = options.quick ? ServerPlan.quick : .full
    let scratch = try ScratchFolder("server")
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
    let bodiesPath = directory + "/bodies"
    try writeBodies(bodies, to: bodiesPath)
    let mean = bodies.reduce(0) { $0 + $1.count } / bodies.count
    say("\n## Server rows (hangar-bench --filter server) - \(Date())")
    say("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores; load average before: \(loadAverage())")
    say(
        "\(plan.pilots) pilots from the pilots dataset as Pilot 2.0 documents, binary plist, mean \(mean) bytes; "
            + "\(plan.connections) keep-alive connections (hangar-load, one event loop thread), "
            + "\(fixed(plan.warmUp, 0)) s warm-up + \(fixed(plan.duration, 0)) s per row; two instances: the "
            + "connections alternate between them; contenders take turns in each configuration")
    let contenders = [
        ServerContender(name: "pilots-server", executable: executables.hangar),
        ServerContender(name: "baseline", executable: executables.baseline),
    ]
    var rows: [ServerRow] = []
    let wrk = WrkRunner.locate(directory: directory, pilots: plan.pilots)
    say(
        wrk.map {
            "wrk: \($0.executable), run after each hangar-load row on the same servers (GET: two threads; update: a thread per connection)"
        }
            ?? "*** wrk not found on PATH: the wrk columns are empty (apt-get install wrk) ***")
    let context = ServerRunContext(
        executables: executables, plan: plan, bodiesPath: bodiesPath, directory: directory, workloads: workloads,
        wrk: wrk)
    // pilots-server logs each request at `info`; the baseline logs warnings only: the same for both.
    func quiet(_ contender: ServerContender) -> [String] {
        contender.name == "pilots-server" ? ["--log-level", "warning"] : []
    }
    rows += try context.run(engine: "SQLite", contenders: contenders) { contender in
        ["--db", directory + "/\(contender.name).sqlite"] + quiet(contender)
    }
    if let url = postgresBenchURL() {
        let server = try PostgresBenchServer(url: url)
        defer { server.finish() }
        let schemas = Dictionary(
            uniqueKeysWithValues: contenders.map {
                ($0.name, server.schema("server_" + $0.name.replacingOccurrences(of: "-", with: "_")))
            })
        rows += try context.run(engine: "PostgreSQL", contenders: contenders) { contender in
            ["--url", url, "--schema", schemas[contender.name] ?? contender.name] + quiet(contender)
        }
    } else {
        say("\n*** SKIPPED: the PostgreSQL server rows need HANGAR_BENCH_POSTGRES_URL or HANGAR_TEST_POSTGRES_URL ***")
    }
    for line in serverTables(rows) { say(line) }
    say("\nserver rows: \(elapsed(since: start)); load average after: \(loadAverage())")
    try writeServerResults(lines, quick: options.quick)
}

func postgresBenchURL() -> String? {
    let environment = ProcessInfo.processInfo.environment
    return [environment["HANGAR_BENCH_POSTGRES_URL"], environment["HANGAR_TEST_POSTGRES_URL"]]
        .compactMap({ $0 }).first(where: { !$0.isEmpty })
}

/// What every engine's run shares.
struct ServerRunContext {
    var executables: ServerExecutables
    var plan: ServerPlan
    var bodiesPath: String
    var directory: String
    var workloads: [ServerWorkload]
    var wrk: WrkRunner?

    /// Seeds each contender's store through one instance, then measures every workload with one instance and with
    /// two (the second started on the same store), the contenders taking turns.
    func run(engine: String, contenders: [ServerContender], storeArguments: (ServerContender) -> [String]) throws
        -> [ServerRow]
    {
        var instances: [[ServerProcess]] = []
        defer { for list in instances { for server in list { server.stop() } } }
        for contender in contenders {
            let server = try start(contender, arguments: storeArguments(contender), instance: 1, engine: engine)
            instances.append([server])
            let seed = try load(.init(contender: contender.name, urls: [server.url], workload: "seed", seconds: 0))
            guard seed.created == plan.pilots, seed.errorCount == 0 else {
                throw ServerSetupError(
                    "seeding \(contender.name) on \(engine): \(seed.created) of \(plan.pilots) created, "
                        + "errors \(seed.errors); its log: \(server.logTail)")
            }
            print("  \(engine) \(contender.name): seeded \(seed.created) pilots in \(fixed(seed.seconds, 1)) s")
        }
        var rows: [ServerRow] = []
        for count in [1, 2] {
            if count == 2 {
                for (index, contender) in contenders.enumerated() {
                    instances[index].append(
                        try start(contender, arguments: storeArguments(contender), instance: 2, engine: engine))
                }
            }
            for workload in workloads {
                for (index, contender) in contenders.enumerated() {
                    let urls = instances[index].map(\.url)
                    let report = try load(
                        .init(
                            contender: contender.name, urls: urls, workload: workload.loadName, seconds: plan.duration))
                    let wrkReport = try wrk?.run(
                        workload, urls: urls, connections: plan.connections, seconds: plan.duration)
                    rows.append(
                        ServerRow(
                            engine: engine, instances: count, workload: workload, contender: contender.name,
                            report: report, wrk: wrkReport))
                    print(
                        "  \(engine) ×\(count) \(workload.rawValue) \(contender.name): \(fixed(report.perSecond, 0))/s, "
                            + "p50 \(fixed(report.p50Micros / 1e3, 2)) ms, p99 \(fixed(report.p99Micros / 1e3, 2)) ms"
                            + (report.errorCount > 0 ? ", errors \(report.errors)" : "")
                            + (wrkReport.map { "; wrk \(fixed($0.perSecond, 0))/s" } ?? ""))
                    fflush(nil)
                }
            }
        }
        return rows
    }

    private func start(_ contender: ServerContender, arguments: [String], instance: Int, engine: String) throws
        -> ServerProcess
    {
        try ServerProcess(
            name: "\(contender.name) #\(instance) (\(engine))", executable: contender.executable, arguments: arguments,
            logPath: directory + "/\(contender.name)-\(engine)-\(instance).log")
    }

    struct LoadRun {
        var contender: String
        var urls: [String]
        var workload: String
        var seconds: Double
    }

    private func load(_ run: LoadRun) throws -> LoadReport {
        var arguments = run.urls.flatMap { ["--url", $0] }
        arguments += [
            "--bodies", bodiesPath, "--workload", run.workload, "--connections", String(plan.connections),
            "--warm-up", String(plan.warmUp), "--duration", String(run.seconds),
        ]
        return try runLoadGenerator(executables.load, arguments)
    }
}

/// The per-row table and the ratio table (Hangar / baseline).
func serverTables(_ rows: [ServerRow]) -> [String] {
    var table = Table(
        header: [
            "engine", "servers", "workload", "contender", "ops/s", "p50 ms", "p99 ms", "412s", "errors", "wrk ops/s",
            "wrk non-2xx",
        ],
        leftAligned: 4)
    for row in rows {
        let report = row.report
        table.rows.append([
            row.engine, "\(row.instances)", row.workload.title, row.contender, fixed(report.perSecond, 0),
            fixed(report.p50Micros / 1e3, 2), fixed(report.p99Micros / 1e3, 2), "\(report.conflicts)",
            "\(report.errorCount)", row.wrk.map { fixed($0.perSecond, 0) } ?? "-",
            row.wrk.map { "\($0.non2xx)" } ?? "-",
        ])
    }
    var ratios = Table(
        header: [
            "engine", "servers", "workload", "pilots-server ops/s", "baseline ops/s", "Hangar/baseline",
            "p99 Hangar/baseline", "wrk Hangar/baseline",
        ], leftAligned: 3)
    for row in rows where row.contender == "pilots-server" {
        guard
            let peer = rows.first(where: {
                $0.contender == "baseline" && $0.engine == row.engine && $0.instances == row.instances
                    && $0.workload == row.workload
            })
        else { continue }
        ratios.rows.append([
            row.engine, "\(row.instances)", row.workload.title, fixed(row.report.perSecond, 0),
            fixed(peer.report.perSecond, 0), fixed(row.report.perSecond / peer.report.perSecond, 2),
            fixed(row.report.p99Micros / peer.report.p99Micros, 2),
            row.wrk.flatMap { mine in peer.wrk.map { fixed(mine.perSecond / $0.perSecond, 2) } } ?? "-",
        ])
    }
    var lines = ["", table.render(), ""]
    lines.append("ops/s: operations completed in the measured window / its length (an update is a GET and a PUT);")
    lines.append("p50/p99: per operation; 412s: updates whose If-Match lost to another connection's write.")
    lines += ["", ratios.render(), ""]
    lines.append("Hangar/baseline: pilots-server ops/s / baseline ops/s (>1: Hangar serves more); p99 ratio <1: Hangar")
    lines.append("answers faster at the 99th percentile.")
    return lines
}

/// Writes the section's output to `Results/<date>-server.txt` (not for `--quick` runs, whose figures are a smoke
/// test).
func writeServerResults(_ lines: [String], quick: Bool) throws {
    guard !quick else {
        print("(--quick: the results file is not written)")
        return
    }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
    let day = calendar.dateComponents([.year, .month, .day], from: Date())
    let date = [day.year ?? 0, day.month ?? 0, day.day ?? 0].map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: "-")
    let path = BenchPaths.benchmarks + "/Results/\(date)-server.txt"
    try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    print("written: \(path)")
}
