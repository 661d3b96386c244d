import Dispatch
import Foundation
import Hangar
@_spi(Engine) import HangarPostgres
import PostgresNIO
import PropertyList

// The PostgreSQL rows (issue 13, "Measured"): `PostgresStore` beside raw postgres-nio (`PostgresClient`) doing what
// an app team would write by hand with the same blobs and the same codec work: one table (collection, key,
// revision, body bytea), `INSERT … ON CONFLICT … RETURNING revision` and `SELECT body`, one round trip per save or
// load, in `BEGIN`…`COMMIT` (`PostgresClient.withTransaction`) where the store runs a transaction. Contenders take
// turns within each round, as in the store rows (StoreBenchmark.swift); each run works in fresh schemas it drops.

enum PostgresOperation: String, CaseIterable {
    case batchSave = "postgres-batch-save"
    case singleSave = "postgres-single-save"
    case load = "postgres-load"
    case indexQuery = "postgres-index-query"
    case throughput = "postgres-throughput"
    case mixed = "postgres-mixed"
    case follow = "postgres-follow"
}

struct PostgresPlan {
    /// Saves in one transaction; also the documents stored for the loads, index queries and mixed rows.
    var documents: Int
    /// Saves of one document per transaction.
    var singleSaves: Int
    /// Point loads of random keys, in one read transaction.
    var loads: Int
    /// Equality queries on a declared index, in one read transaction.
    var queries: Int
    /// Saves (one per transaction) of one throughput round, split over the clients.
    var throughputSaves: Int
    var clients: [Int] = [1, 4, 16]
    var warmUp: Int
    var iterations: Int
    var throughputIterations: Int

    static let full = PostgresPlan(
        documents: 1_000, singleSaves: 300, loads: 2_000, queries: 1_000, throughputSaves: 960, warmUp: 1,
        iterations: 7, throughputIterations: 5)
    static let quick = PostgresPlan(
        documents: 200, singleSaves: 60, loads: 400, queries: 200, throughputSaves: 192, warmUp: 1, iterations: 3,
        throughputIterations: 3)
}

struct PostgresBenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Where an async result crosses to the waiting thread (the semaphore orders the write before the read).
private final class ResultBox<Value>: @unchecked Sendable {
    var result: Result<Value, any Error>?
}

/// Runs `body` in a task and waits for it on the calling thread (the harness is synchronous; it runs on the main
/// thread, never on the cooperative pool the task runs on).
@discardableResult
func waitFor<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) throws -> Value {
    let box = ResultBox<Value>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do {
            box.result = .success(try await body())
        } catch {
            box.result = .failure(error)
        }
        done.signal()
    }
    done.wait()
    guard let result = box.result else { throw PostgresBenchError("a task ended without a result") }
    return try result.get()
}

/// ``waitFor(_:)`` of a count, as a contender's result.
func waitForCount(_ body: @escaping @Sendable () async throws -> Int) throws -> Any {
    try waitFor(body)
}

/// The server: an admin client (schemas, fresh tables before each round), and the schemas to drop at the end.
final class PostgresBenchServer: @unchecked Sendable {
    let url: String
    let prefix: String
    let clientConfiguration: PostgresClient.Configuration
    let admin: PostgresClient
    private let runner: Task<Void, Never>
    private(set) var schemas: [String] = []
    let logger = Logger(label: "hangar-bench.postgres")
    /// The pool size of every store and raw client: the most concurrent clients of the throughput rows.
    static let poolSize = 16

    init(url: String) throws {
        self.url = url
        prefix = "hangar_bench_\(getpid())"
        var configuration = try PostgresStoreConfiguration(url: url)
        configuration.poolSize = Self.poolSize
        clientConfiguration = try configuration.makeClientConfiguration()
        let admin = PostgresClient(configuration: clientConfiguration, backgroundLogger: logger)
        self.admin = admin
        runner = Task { await admin.run() }
    }

    /// A schema name of this run (dropped at the end).
    func schema(_ name: String) -> String {
        let schema = prefix + "_" + name
        schemas.append(schema)
        return schema
    }

    func execute(_ statements: [String]) throws {
        let admin = self.admin
        let logger = self.logger
        _ = try waitFor {
            try await admin.withConnection { connection in
                for statement in statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
            }
            return 0
        }
    }

    /// A raw client with the same configuration as the stores' (pool size, timeouts).
    func makeRawClient() -> RawPostgres {
        RawPostgres(configuration: clientConfiguration, logger: logger)
    }

    /// Drops every schema this run created, and stops the admin client.
    func finish() {
        let statements = schemas.map { "DROP SCHEMA IF EXISTS \"\($0)\" CASCADE" }
        do {
            try execute(statements)
        } catch {
            print("  WARNING: dropping the benchmark's schemas failed: \(error)")
        }
        runner.cancel()
    }
}

/// A raw postgres-nio client and its running pool.
final class RawPostgres: Sendable {
    let client: PostgresClient
    let logger: Logger
    private let runner: Task<Void, Never>

    init(configuration: PostgresClient.Configuration, logger: Logger) {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        runner = Task { await client.run() }
    }

    func stop() { runner.cancel() }
}

/// The raw contender's table, in its own schema: what an app team writes by hand.
struct RawPostgresTable: Sendable {
    let schema: String
    let upsert: String
    let selectBody: String
    let selectIndexKeys: String
    let insertIndexEntry: String

    init(schema: String) {
        self.schema = schema
        let s = "\"\(schema)\""
        upsert = """
            INSERT INTO \(s).documents AS d (collection, key, revision, body) VALUES ($1, $2, 1, $3)
            ON CONFLICT (collection, key) DO UPDATE SET revision = d.revision + 1, body = excluded.body
            RETURNING revision
            """
        selectBody = "SELECT body FROM \(s).documents WHERE collection = $1 AND key = $2"
        selectIndexKeys = """
            SELECT key FROM \(s).index_entries WHERE collection = $1 AND name = $2 AND value = $3 ORDER BY key
            """
        insertIndexEntry = "INSERT INTO \(s).index_entries (collection, name, value, key) VALUES ($1, $2, $3, $4)"
    }

    var create: [String] {
        let s = "\"\(schema)\""
        return [
            "CREATE SCHEMA \(s)",
            """
            CREATE TABLE \(s).documents (collection text COLLATE "C" NOT NULL, key text COLLATE "C" NOT NULL,
                revision bigint NOT NULL, body bytea NOT NULL, PRIMARY KEY (collection, key))
            """,
            """
            CREATE TABLE \(s).index_entries (collection text COLLATE "C" NOT NULL, name text COLLATE "C" NOT NULL,
                value text COLLATE "C" NOT NULL, key text COLLATE "C" NOT NULL, PRIMARY KEY (collection, name, value, key))
            """,
        ]
    }

    var truncate: [String] { ["TRUNCATE \"\(schema)\".documents, \"\(schema)\".index_entries"] }

    /// Saves `blob` under `key`: one round trip; returns the revision.
    func save(_ blob: [UInt8], key: String, collection: String, on connection: PostgresConnection, logger: Logger)
        async throws -> Int
    {
        var binds = PostgresBindings()
        binds.append(collection)
        binds.append(key)
        binds.append(ByteBuffer(bytes: blob))
        let rows = try await connection.query(PostgresQuery(unsafeSQL: upsert, binds: binds), logger: logger)
        var revision = 0
        for try await row in rows { revision = Int(try row.decode(Int64.self)) }
        return revision
    }

    /// The body stored under `key`, copied into bytes.
    func body(key: String, collection: String, on connection: PostgresConnection, logger: Logger) async throws
        -> [UInt8]
    {
        var binds = PostgresBindings()
        binds.append(collection)
        binds.append(key)
        let rows = try await connection.query(PostgresQuery(unsafeSQL: selectBody, binds: binds), logger: logger)
        var body: [UInt8]?
        for try await row in rows { body = Array(try row.decode(ByteBuffer.self).readableBytesView) }
        guard let body else { throw PostgresBenchError("no row for \(key)") }
        return body
    }

    /// The keys whose index `name` holds `value`.
    func keys(index name: String, value: String, collection: String, on connection: PostgresConnection, logger: Logger)
        async throws -> [String]
    {
        var binds = PostgresBindings()
        binds.append(collection)
        binds.append(name)
        binds.append(value)
        let rows = try await connection.query(PostgresQuery(unsafeSQL: selectIndexKeys, binds: binds), logger: logger)
        var keys: [String] = []
        for try await row in rows { keys.append(try row.decode(String.self)) }
        return keys
    }
}

/// What the store's tables look like when fresh (outside the clock, before each save round).
func truncateStoreStatements(_ schema: String) -> [String] {
    let s = "\"\(schema)\""
    return [
        "TRUNCATE \(s).documents, \(s).history, \(s).key_revisions, \(s).index_entries, \(s).changes",
        "UPDATE \(s).change_counter SET last_sequence = 0, last_transaction = 0, pruned_through = 0",
    ]
}

/// The index of the index-query rows: every airplane's registration number.
let registrationIndex = "registration"

func postgresStoreConfiguration(indexed: Bool = false) -> StoreConfiguration {
    var configuration = StoreConfiguration()
    configuration.collections[Pilot.collection] = CollectionOptions(
        history: .keepAll,
        indexes: indexed ? [.path("airplanes", "registrationNumber", name: registrationIndex)] : [])
    return configuration
}

func openPostgresStore(_ server: PostgresBenchServer, schema: String, indexed: Bool = false) throws -> PostgresStore {
    var configuration = try PostgresStoreConfiguration(
        url: server.url, schema: schema, store: postgresStoreConfiguration(indexed: indexed))
    configuration.poolSize = PostgresBenchServer.poolSize
    let opened = configuration
    return try waitFor { try await PostgresStore(configuration: opened) }
}

// MARK: - Running

func runPostgresSection(options: Options) throws {
    let operations = PostgresOperation.allCases.filter { options.includes(operationNamed: $0.rawValue) }
    guard !operations.isEmpty else { return }
    let environment = ProcessInfo.processInfo.environment
    guard
        let url = [environment["HANGAR_BENCH_POSTGRES_URL"], environment["HANGAR_TEST_POSTGRES_URL"]]
            .compactMap({ $0 }).first(where: { !$0.isEmpty })
    else {
        print(
            "\n*** SKIPPED: the PostgreSQL rows (\(operations.map(\.rawValue).joined(separator: ", "))) need a server: "
                + "set HANGAR_BENCH_POSTGRES_URL (or HANGAR_TEST_POSTGRES_URL), e.g. through "
                + "Scripts/with-postgres.sh ***")
        return
    }
    let start = ContinuousClock.now
    let plan = options.quick ? PostgresPlan.quick : .full
    let server = try PostgresBenchServer(url: url)
    defer { server.finish() }
    let data = try StoreData(
        plan: StorePlan(
            name: "postgres", documents: plan.documents, singleSaves: plan.singleSaves, loads: plan.loads,
            warmUp: plan.warmUp, iterations: plan.iterations, singleSaveIterations: plan.iterations),
        directory: "")
    let bench = try PostgresBench(server: server, data: data, plan: plan)
    defer { bench.close() }
    let version = (try? bench.serverVersion()) ?? "unknown"
    print(
        "\npostgres setup: \(elapsed(since: start)); server \(version) at \(redactedPostgresURL(url)); "
            + "pool size \(PostgresBenchServer.poolSize) for the store and the raw client; the store at its defaults "
            + "(history keepAll); raw postgres-nio: one (collection, key, revision, body bytea) table, INSERT ... "
            + "ON CONFLICT ... RETURNING revision / SELECT body, in BEGIN...COMMIT (PostgresClient.withTransaction)")
    if let first = data.notes.first { print("  \(first)") }
    for note in bench.notes { print("  \(note)") }
    print(
        "  us/doc = time / documents (or loads, queries); store/raw = store time / its raw baseline's time "
            + "(same codec work; target <= 2x); vs bare SQL = store time / raw postgres-nio with the blobs ready")
    fflush(nil)
    let warmUp = plan.warmUp
    var throughput: [(String, Int, Int, Sample, Sample)] = []
    for operation in operations {
        var (title, count, list) = ("", 0, [StoreContender]())
        switch operation {
        case .batchSave:
            (title, count, list) = (
                "\(plan.documents) saves in one transaction (fresh tables each round)", plan.documents,
                try bench.batchSaveContenders()
            )
        case .singleSave:
            (title, count, list) = (
                "\(plan.singleSaves) saves, one transaction each (fresh tables each round)", plan.singleSaves,
                try bench.singleSaveContenders()
            )
        case .load:
            (title, count, list) = (
                "\(plan.loads) point loads of random keys from \(plan.documents) documents, one read transaction",
                plan.loads, try bench.loadContenders()
            )
        case .indexQuery:
            (title, count, list) = (
                "\(plan.queries) equality queries on a declared index (airplanes.registrationNumber), one read "
                    + "transaction", plan.queries, try bench.indexQueryContenders()
            )
        case .follow:
            try runPostgresFollowRow(server: server, quick: options.quick)
            continue
        case .throughput, .mixed:
            for clients in plan.clients {
                let list = try bench.throughputContenders(clients: clients, mixed: operation == .mixed)
                    .filter { options.includes($0.contender) }
                guard !list.isEmpty else { continue }
                let count = operation == .mixed ? plan.throughputSaves * 4 : plan.throughputSaves
                let outcomes = Harness.measure(
                    list.map(\.contender), warmUp: warmUp,
                    iterations: options.iterations ?? plan.throughputIterations)
                reportStore(
                    tag: operation.rawValue,
                    title: operation == .mixed
                        ? "\(count) operations (1 save : 3 loads, one transaction each) by \(clients) concurrent "
                            + "client(s) (\(count / clients) each)"
                        : "\(count) saves, one transaction each, by \(clients) concurrent client(s) "
                            + "(\(count / clients) each, distinct keys; fresh tables each round)",
                    contenders: list, outcomes: outcomes, count: count)
                if case .measured(let ours) = outcomes[0], case .measured(let raw) = outcomes[1] {
                    throughput.append((operation.rawValue, clients, count, ours, raw))
                }
                fflush(nil)
            }
            continue
        }
        let filtered = list.filter { options.includes($0.contender) }
        guard !filtered.isEmpty else { continue }
        let outcomes = Harness.measure(
            filtered.map(\.contender), warmUp: warmUp, iterations: options.iterations ?? plan.iterations)
        reportStore(tag: operation.rawValue, title: title, contenders: filtered, outcomes: outcomes, count: count)
        fflush(nil)
    }
    if !throughput.isEmpty {
        var table = Table(
            header: [
                "rows", "clients", "store ops/s med", "raw ops/s med", "store ops/s best", "raw ops/s best",
                "store/raw med",
            ], leftAligned: 1)
        for (tag, clients, count, ours, raw) in throughput {
            let operationsCount = Double(count)
            table.rows.append([
                tag, "\(clients)", fixed(operationsCount / ours.median.seconds, 0),
                fixed(operationsCount / raw.median.seconds, 0), fixed(operationsCount / ours.minimum.seconds, 0),
                fixed(operationsCount / raw.minimum.seconds, 0),
                fixed(ours.median.seconds / raw.median.seconds, 2) + "x",
            ])
        }
        print("\n== throughput: operations per second by concurrent clients [postgres-throughput, postgres-mixed] ==")
        print(table.render())
    }
    print("\npostgres rows: \(elapsed(since: start))")
}

/// `url` without its password, for the report.
func redactedPostgresURL(_ url: String) -> String {
    guard let at = url.lastIndex(of: "@"), let scheme = url.range(of: "://") else { return "(a URL)" }
    let credentials = url[scheme.upperBound..<at]
    let user = credentials.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
    return String(url[..<scheme.upperBound]) + user + ":***" + String(url[at...])
}

// MARK: - Contenders

/// The stores, raw tables and data of one run.
final class PostgresBench {
    let server: PostgresBenchServer
    let data: StoreData
    let plan: PostgresPlan
    let raw: RawPostgres
    var stores: [PostgresStore] = []
    var notes: [String] = []
    /// The filled store and raw table of the loads, index queries and mixed rows.
    let filledStore: PostgresStore
    let filledRaw: RawPostgresTable

    init(server: PostgresBenchServer, data: StoreData, plan: PostgresPlan) throws {
        self.server = server
        self.data = data
        self.plan = plan
        raw = server.makeRawClient()
        let store = try openPostgresStore(server, schema: server.schema("filled_store"), indexed: true)
        let table = RawPostgresTable(schema: server.schema("filled_raw"))
        filledStore = store
        filledRaw = table
        stores.append(store)
        try server.execute(table.create)
        try fill(store, table, indexed: true)
        try check()
    }

    private var mixed: (PostgresStore, RawPostgresTable)?

    /// The store and raw table of the mixed rows: filled like the loads' ones, without the index (the raw table
    /// keeps no index entries either).
    func mixedTables() throws -> (PostgresStore, RawPostgresTable) {
        if let mixed { return mixed }
        let store = try openPostgresStore(server, schema: server.schema("mixed_store"))
        stores.append(store)
        let table = RawPostgresTable(schema: server.schema("mixed_raw"))
        try server.execute(table.create)
        try fill(store, table, indexed: false)
        mixed = (store, table)
        return (store, table)
    }

    func close() {
        let stores = self.stores
        _ = try? waitFor {
            for store in stores { await store.close() }
            return 0
        }
        raw.stop()
    }

    func serverVersion() throws -> String {
        let client = raw.client
        let logger = raw.logger
        return try waitFor {
            try await client.withConnection { connection in
                var version = ""
                for try await row in try await connection.query("SHOW server_version", logger: logger) {
                    version = try row.decode(String.self)
                }
                return version
            }
        }
    }

    /// A fresh, empty store in its own schema, emptied again before each round.
    func freshStore(_ name: String) throws -> (PostgresStore, () throws -> Void) {
        let schema = server.schema(name)
        let store = try openPostgresStore(server, schema: schema)
        stores.append(store)
        let server = self.server
        return (store, { try server.execute(truncateStoreStatements(schema)) })
    }

    /// A fresh, empty raw table in its own schema, emptied again before each round.
    func freshRaw(_ name: String) throws -> (RawPostgresTable, () throws -> Void) {
        let table = RawPostgresTable(schema: server.schema(name))
        try server.execute(table.create)
        let server = self.server
        return (table, { try server.execute(table.truncate) })
    }

    /// Fills a store and a raw table with every document (and, `indexed`, the raw index entries).
    private func fill(_ store: PostgresStore, _ table: RawPostgresTable, indexed: Bool) throws {
        let client = raw.client
        let logger = raw.logger
        let pilots = data.pilots
        let keys = data.keys
        let blobs = data.blobs
        let collection = Pilot.collection
        try waitFor {
            try await store.write { transaction in
                for index in keys.indices { try await transaction.save(pilots[index], key: keys[index]) }
            }
            try await client.withTransaction(logger: logger) { connection in
                for index in keys.indices {
                    _ = try await table.save(
                        blobs[index], key: keys[index], collection: collection, on: connection, logger: logger)
                    for airplane in pilots[index].airplanes where indexed {
                        var binds = PostgresBindings()
                        binds.append(collection)
                        binds.append(registrationIndex)
                        binds.append(airplane.registrationNumber)
                        binds.append(keys[index])
                        try await connection.query(
                            PostgresQuery(unsafeSQL: table.insertIndexEntry + " ON CONFLICT DO NOTHING", binds: binds),
                            logger: logger)
                    }
                }
            }
            return 0
        }
        try server.execute([
            "ANALYZE \"\(store.postgresConfiguration.schema)\".documents",
            "ANALYZE \"\(store.postgresConfiguration.schema)\".index_entries",
            "ANALYZE \"\(table.schema)\".documents", "ANALYZE \"\(table.schema)\".index_entries",
        ])
    }

    /// Checks that the loads' store and raw table hold the same bodies and answer the index queries alike.
    private func check() throws {
        let store = filledStore
        let table = filledRaw
        let client = raw.client
        let logger = raw.logger
        let keys = data.keys
        let blobs = data.blobs
        let collection = Pilot.collection
        // Outside any clock: both sides hold the very same bytes, and answer the index queries alike.
        let sample = Array(data.lookups.prefix(50))
        let values = Array(queryValues.prefix(50))
        let (storeBodies, storeKeys) = try waitFor {
            try await store.read { transaction in
                var bodies: [[UInt8]] = []
                for key in sample {
                    bodies.append(try await transaction.document(in: collection, key: key)?.body ?? [])
                }
                var keys: [[String]] = []
                for value in values {
                    keys.append(
                        try await transaction.keys(in: collection, index: registrationIndex, equalTo: .string(value)))
                }
                return (bodies, keys)
            }
        }
        let (rawBodies, rawKeys) = try waitFor {
            try await client.withTransaction(logger: logger) { connection in
                var bodies: [[UInt8]] = []
                for key in sample {
                    bodies.append(
                        try await table.body(key: key, collection: collection, on: connection, logger: logger))
                }
                var keys: [[String]] = []
                for value in values {
                    keys.append(
                        try await table.keys(
                            index: registrationIndex, value: value, collection: collection, on: connection,
                            logger: logger))
                }
                return (bodies, keys)
            }
        }
        let expected = sample.compactMap { key in keys.firstIndex(of: key).map { blobs[$0] } }
        notes.append(
            "check: the store's and the raw table's bodies for 50 keys: "
                + "\(storeBodies == rawBodies && storeBodies == expected ? "identical" : "DIFFER"); the index "
                + "queries of 50 values: \(storeKeys == rawKeys && storeKeys.allSatisfy { !$0.isEmpty } ? "the same keys" : "DIFFER")"
        )
    }

    /// Registration numbers to query: the first airplane of each looked-up pilot.
    lazy var queryValues: [String] = {
        let indexByKey = Dictionary(data.keys.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        return data.lookups.prefix(plan.queries).compactMap { key in
            indexByKey[key].flatMap { data.pilots[$0].airplanes.first?.registrationNumber }
        }
    }()
}
