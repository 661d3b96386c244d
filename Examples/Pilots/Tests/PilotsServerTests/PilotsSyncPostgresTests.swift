import Foundation
import Hangar
import HangarSQLite
import HangarSync
import HangarTestSupport
import PilotModels
import PropertyList
import Testing

/// Hangar Sync with the server's store on PostgreSQL: two pilots-server instances on one schema, two devices
/// each syncing with another instance, offline edits converging, a retried push applied once.
@Suite(.enabled(if: TestPostgres.shouldRun)) struct PilotsSyncPostgresTests {
    let directory: TemporaryDirectory
    let arguments: [String]

    init() throws {
        directory = try TemporaryDirectory()
        arguments = ["--url", try TestPostgres.requireURL(), "--schema", TestPostgres.uniqueSchemaName("sync")]
    }

    func device(_ name: String, server: ServerProcess) throws -> (SQLiteStore, SyncReplica<SQLiteStore>) {
        var configuration = StoreConfiguration()
        configuration.registry = .pilots
        configuration.collections[Pilot.collection] = CollectionOptions(format: Pilot.format)
        let store = try SQLiteStore(path: directory.path + "/\(name).sqlite", store: configuration)
        guard let url = URL(string: server.baseURL) else { throw HarnessFailure("bad URL \(server.baseURL)") }
        return (store, SyncReplica(store: store, transport: HTTPSyncTransport(baseURL: url)))
    }

    @Test func devicesConvergeThroughTwoInstancesOnOneDatabase() async throws {
        let first = try ServerProcess(arguments, directory: directory.path)
        defer { first.terminate() }
        let second = try ServerProcess(arguments, directory: directory.path)
        defer { second.terminate() }
        let (a, replicaA) = try device("a", server: first)
        let (b, replicaB) = try device("b", server: second)
        try await a.write { try $0.save(Pilot(name: "Ada"), key: "ada") }
        _ = try await replicaA.sync(Pilot.collection)
        _ = try await replicaB.sync(Pilot.collection)
        try await a.write { try $0.save(Pilot(name: "Ada Lovelace"), key: "ada", expectedRevision: nil) }
        try await b.write { try $0.save(Pilot(name: "Ada", homeAirfield: "EGLL"), key: "ada", expectedRevision: nil) }
        try await b.write { try $0.save(Pilot(name: "Bo"), key: "bo") }
        _ = try await replicaA.sync(Pilot.collection)
        let report = try await replicaB.sync(Pilot.collection)
        #expect(report.conflicts == 1 && report.pushed == 2)
        #expect(try await replicaA.sync(Pilot.collection).pulled == 2)
        for store in [a, b] {
            let ada = try await store.load(Pilot.self, key: "ada")?.value
            #expect(ada?.name == "Ada Lovelace" && ada?.homeAirfield == "EGLL")
            #expect(try await store.load(Pilot.self, key: "bo")?.value.name == "Bo")
        }
        let reply = try HTTP.send("GET", first.url("/pilots/ada/history"), headers: ["Accept": "application/json"])
        #expect(reply.status == 200)
        await a.close()
        await b.close()
    }
}
