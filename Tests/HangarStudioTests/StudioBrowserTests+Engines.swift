import Foundation
import Hangar
import HangarPostgres
import HangarSQLite
import HangarSync
import HangarTestSupport
import PropertyList
import Testing

extension StudioBrowserTests {
    /// The same pages on a PostgreSQL store (`--url`), against the test server (Scripts/with-postgres.sh).
    @Test(.enabled(if: TestPostgres.shouldRun)) func thePagesWorkOnAPostgresStore() async throws {
        try Browser.require()
        let url = try TestPostgres.requireURL() + "?schema=" + TestPostgres.uniqueSchemaName("studio")
        let store = try await PostgresStore(
            configuration: try PostgresStoreConfiguration(url: url, store: StudioStores.sampleConfiguration))
        try await StudioStores.writeSample(into: store)
        await store.close()
        let studio = try StudioProcess(["--url", url])
        try Browser.run("pages", studio, shots: "postgres", expect: StudioStores.expectedPages)
        try Browser.run(
            "diff", studio, shots: "postgres-diff",
            expect: [
                "collection": "notes", "document": "b1", "a": 1, "b": 2, "paths": [[[["key": "title"]], "changed"]],
            ])
        #expect(studio.stop() == 0)
    }

    /// A device store that syncs, with a conflict copy; and the server store it syncs with.
    @Test func theSyncPageShowsADevicesConflictAndTheServersClients() async throws {
        try Browser.require()
        let folder = try ScratchFolders.make("studio-sync")
        let server = try SQLiteStore(path: folder + "/server.sqlite")
        let a = try SQLiteStore(path: folder + "/a.sqlite")
        let b = try SQLiteStore(path: folder + "/b.sqlite")
        let transport = LocalSyncTransport(server: SyncServer(store: server))
        let replicaA = SyncReplica(store: a, transport: transport)
        let replicaB = SyncReplica(store: b, transport: transport)
        let note: (String) -> PropertyList = { StudioStores.envelope(1, 0, ["title": .string($0)]) }
        try await a.write { try await $0.save(envelope: note("Ada"), key: "p1", in: "notes") }
        _ = try await replicaA.sync("notes")
        _ = try await replicaB.sync("notes")
        try await a.write { try await $0.save(envelope: note("Ada A"), key: "p1", in: "notes") }
        try await b.write { try await $0.save(envelope: note("Ada B"), key: "p1", in: "notes") }
        try await b.write { try await $0.save(envelope: note("pending"), key: "p2", in: "notes") }
        _ = try await replicaA.sync("notes")
        _ = try await replicaB.sync("notes")
        try await b.write { try await $0.save(envelope: note("still pending"), key: "p3", in: "notes") }
        let copies = try await replicaB.conflictCopies(in: "notes")
        #expect(copies.count == 1)
        for store in [server, a, b] { await store.close() }

        let device = try StudioProcess(["--db", folder + "/b.sqlite"])
        try Browser.run(
            "sync", device, shots: "sync-device",
            expect: [
                "texts": ["Device store", "Conflict copies (1)", "Base", "Mine", "Theirs", "p3"], "conflict": "p1",
            ])
        #expect(device.stop() == 0)
        let serverStudio = try StudioProcess(["--db", folder + "/server.sqlite"])
        try Browser.run("sync", serverStudio, shots: "sync-server", expect: ["texts": ["Server store", "Epoch"]])
        #expect(serverStudio.stop() == 0)
    }
}
