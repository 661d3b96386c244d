import Foundation
import Hangar
@_spi(Engine) import HangarPostgres
import PostgresNIO
import PropertyList

// The replica-reads row (issue 38): point reads per second from 16 clients, by a store on the primary alone and by a
// store given the streaming standbys as read replicas, with and without a commit token. On one machine the primary
// and its standbys share the same cores, so the row shows what choosing a replica and checking a token cost, not how
// reads scale over machines.

/// The reads of one round, split over ``clients`` tasks; each read is one point load in a read of its own.
private struct ReplicaReadPlan {
    var documents: Int
    var reads: Int
    var clients = 16
    var warmUp = 1
    var iterations: Int

    static let full = ReplicaReadPlan(documents: 1_000, reads: 8_000, iterations: 5)
    static let quick = ReplicaReadPlan(documents: 200, reads: 1_600, iterations: 3)
}

/// Runs the replica-reads row unless `--filter` leaves it out; it needs a primary
/// (`HANGAR_BENCH_POSTGRES_URL` or `HANGAR_TEST_POSTGRES_URL`) and its standbys (`HANGAR_TEST_POSTGRES_STANDBY_URLS`,
/// as `Scripts/with-postgres.sh --standbys 2` exports them), else it says SKIPPED.
func runReplicaReadSection(options: Options) throws {
    guard options.includes(operationNamed: "postgres-replica-reads") else { return }
    let environment = ProcessInfo.processInfo.environment
    let url = [environment["HANGAR_BENCH_POSTGRES_URL"], environment["HANGAR_TEST_POSTGRES_URL"]]
        .compactMap({ $0 }).first(where: { !$0.isEmpty })
    let standbys = (environment["HANGAR_TEST_POSTGRES_STANDBY_URLS"] ?? "").split(separator: " ").map(String.init)
    guard let url, !standbys.isEmpty else {
        print(
            "\n*** SKIPPED: the replica-reads row (postgres-replica-reads) needs a primary and its standbys: run it "
                + "through Scripts/with-postgres.sh --standbys 2 (HANGAR_TEST_POSTGRES_STANDBY_URLS) ***")
        return
    }
    let plan = options.quick ? ReplicaReadPlan.quick : .full
    let server = try PostgresBenchServer(url: url)
    defer { server.finish() }
    let schema = server.schema("replica_reads")
    let data = try StoreData(
        plan: StorePlan(
            name: "replica-reads", documents: plan.documents, singleSaves: 0, loads: plan.reads, warmUp: plan.warmUp,
            iterations: plan.iterations, singleSaveIterations: 0),
        directory: "")
    let primaryOnly = try openPostgresStore(server, schema: schema)
    var configuration = try PostgresStoreConfiguration(
        url: url, replicas: standbys, schema: schema, store: postgresStoreConfiguration())
    configuration.poolSize = PostgresBenchServer.poolSize
    let withReplicas = configuration
    let replicated = try waitFor { try await PostgresStore(configuration: withReplicas) }
    defer {
        _ = try? waitFor {
            await primaryOnly.close()
            await replicated.close()
            return 0
        }
    }
    let token = try fillAndReplicate(primaryOnly, data: data, standbys: standbys)

    print(
        "\nreplica reads: \(plan.reads) point loads of random keys from \(plan.documents) documents by "
            + "\(plan.clients) clients, each its own read; primary and \(standbys.count) streaming standbys on this "
            + "machine (\(ProcessInfo.processInfo.activeProcessorCount) cores), so the figures show what choosing a "
            + "replica and checking a token cost, not scaling; reads/s = reads / median time")
    let contenders: [(String, @Sendable (String) async throws -> Void)] = [
        ("primary alone", { key in _ = try await primaryOnly.document(in: Pilot.collection, key: key) }),
        (
            "primary + \(standbys.count) replicas",
            { key in _ = try await replicated.document(in: Pilot.collection, key: key) }
        ),
        (
            "primary + \(standbys.count) replicas, each read with a token",
            { key in _ = try await replicated.document(in: Pilot.collection, key: key, after: token) }
        ),
    ]
    var medians: [Double] = []
    for (name, read) in contenders {
        var seconds: [Double] = []
        for round in 0..<(plan.warmUp + plan.iterations) {
            let elapsed = try timeConcurrentReads(plan: plan, keys: data.lookups, read: read)
            if round >= plan.warmUp { seconds.append(elapsed) }
        }
        let median = seconds.sorted()[seconds.count / 2]
        medians.append(median)
        let ratio = medians[0] / median
        print(
            "  \(name.padding(toLength: 52, withPad: " ", startingAt: 0)) \(fixed(Double(plan.reads) / median, 0)) "
                + "reads/s  \(fixed(ratio, 2))x the primary alone")
        fflush(nil)
    }
}

/// Saves every document on the primary and waits until each standby has replayed the commit; answers its token.
private func fillAndReplicate(_ store: PostgresStore, data: StoreData, standbys: [String]) throws -> CommitToken {
    let envelopes = data.envelopes
    let keys = data.keys
    let token = try waitFor {
        try await store.writeReturningToken { writer in
            for (envelope, key) in zip(envelopes, keys) {
                _ = try await writer.save(
                    envelope: envelope, key: key, in: Pilot.collection, expectedRevision: nil,
                    overwritingNewerMajor: false)
            }
        }.token
    }
    let deadline = ContinuousClock.now + .seconds(30)
    for standby in standbys {
        var standbyConfiguration = try PostgresStoreConfiguration(url: standby).makeClientConfiguration()
        standbyConfiguration.options.minimumConnections = 0
        let configuration = standbyConfiguration
        let replayed = try waitFor {
            try await withStandby(configuration) { client in
                while ContinuousClock.now < deadline {
                    let found = try await replicaHasDocuments(client, count: keys.count, schema: store)
                    if found { return true }
                    try await Task.sleep(for: .milliseconds(50))
                }
                return false
            }
        }
        guard replayed else {
            throw PostgresBenchError("standby \(redactedPostgresURL(standby)) did not catch up in 30 s")
        }
    }
    return token
}

/// Runs `body` with a client of a standby, stopped afterwards.
private func withStandby<Value: Sendable>(
    _ configuration: PostgresClient.Configuration, _ body: @Sendable (PostgresClient) async throws -> Value
) async throws -> Value {
    let client = PostgresClient(configuration: configuration)
    let runner = Task { await client.run() }
    defer { runner.cancel() }
    return try await body(client)
}

/// Whether the standby holds `count` documents of the benchmark's collection in the store's schema.
private func replicaHasDocuments(_ client: PostgresClient, count: Int, schema store: PostgresStore) async throws
    -> Bool
{
    let schema = store.postgresConfiguration.schema
    let query = PostgresQuery(
        unsafeSQL: "SELECT count(*) FROM \"\(schema)\".documents WHERE collection = $1",
        binds: {
            var binds = PostgresBindings()
            binds.append(Pilot.collection)
            return binds
        }())
    for try await (found) in try await client.query(query).decode(Int.self) { return found >= count }
    return false
}

/// The time `plan.clients` tasks at once take to read `plan.reads` keys of `keys`, each its share.
private func timeConcurrentReads(
    plan: ReplicaReadPlan, keys: [String], read: @escaping @Sendable (String) async throws -> Void
) throws -> Double {
    let perClient = plan.reads / plan.clients
    let clients = plan.clients
    return try waitFor {
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<clients {
                group.addTask {
                    for step in 0..<perClient { try await read(keys[(client * perClient + step) % keys.count]) }
                }
            }
            try await group.waitForAll()
        }
        return (ContinuousClock.now - start).seconds
    }
}
