import Foundation
import Hangar
import HangarSQLite
import HangarSync
import PilotModels
import PropertyList
import Testing

/// Hangar Sync end to end over real SQLite stores (server and clients) and the real server logic: convergence,
/// the conflicts and their resolver calls, at-most-once pushes across lost answers, resumable pulls, resyncs.
@Suite struct SyncTests {
    @Test func twoClientsEditingOfflineConverge() async throws {
        let world = try SyncWorld()
        let a = try world.client("a")
        let b = try world.client("b")
        try await a.save("Ada", key: "p1")
        try await a.save("Bo", key: "p2")
        try await b.save("Cy", key: "p3")
        let first = try await a.sync()
        #expect(first.pushed == 2 && first.conflicts == 0)
        let second = try await b.sync()
        #expect(second.pulled == 2 && second.pushed == 1)
        let third = try await a.sync()
        #expect(third.pulled == 1 && third.pushed == 0)
        #expect(try await world.isInStep(a))
        #expect(try await world.isInStep(b))
        #expect(try await SyncWorld.documents(of: world.server).count == 3)
        // Quiet: another pass moves nothing.
        let quiet = try await b.sync()
        #expect(quiet.pulled == 0 && quiet.pushed == 0 && quiet.conflicts == 0)
        await world.close(a, b)
    }

    @Test func editEditOfDifferentKeysMergesWithTheRealBase() async throws {
        let world = try SyncWorld()
        let recorder = RecordingResolver()
        let a = try world.client("a")
        let b = try world.client("b", resolver: recorder.resolver)
        try await a.save("Ada", key: "p1")
        _ = try await a.sync()
        _ = try await b.sync()
        try await a.save("Ada Lovelace", key: "p1")
        try await b.save("Ada", key: "p1", airfield: "EDDF")
        _ = try await a.sync()
        let report = try await b.sync()
        #expect(report.conflicts == 1 && report.pushed == 1)
        let conflicts = recorder.conflicts
        try #require(conflicts.count == 1)
        #expect(conflicts[0].base?["name"] == "Ada" && conflicts[0].base?["homeAirfield"] == nil)
        #expect(conflicts[0].mine?["homeAirfield"] == "EDDF" && conflicts[0].mine?["name"] == "Ada")
        #expect(conflicts[0].theirs?["name"] == "Ada Lovelace")
        _ = try await a.sync()
        let merged = try await a.pilot("p1")
        #expect(merged?.name == "Ada Lovelace" && merged?.homeAirfield == "EDDF")
        #expect(try await world.isInStep(a))
        #expect(try await world.isInStep(b))
        await world.close(a, b)
    }

    @Test func editEditOfOneKeyKeepsTheirsAndMineAsACopy() async throws {
        let world = try SyncWorld()
        let recorder = RecordingResolver()
        let a = try world.client("a")
        let b = try world.client("b", resolver: recorder.resolver)
        try await a.save("Ada", key: "p1")
        _ = try await a.sync()
        _ = try await b.sync()
        try await a.save("Ada A", key: "p1")
        try await b.save("Ada B", key: "p1")
        _ = try await a.sync()
        let report = try await b.sync()
        #expect(report.conflicts == 1 && report.pushed == 0)
        #expect(recorder.conflicts.count == 1)
        #expect(try await b.pilot("p1")?.name == "Ada A")
        let copies = try await b.replica.conflictCopies(in: Pilot.collection)
        #expect(copies["p1"]??["name"] == "Ada B")
        #expect(try await world.isInStep(b))
        await world.close(a, b)
    }

    @Test func editVersusDeleteKeepsTheEditEitherWay() async throws {
        let world = try SyncWorld()
        let recorder = RecordingResolver()
        let a = try world.client("a")
        let b = try world.client("b", resolver: recorder.resolver)
        try await a.save("Ada", key: "p1")
        try await a.save("Bo", key: "p2")
        _ = try await a.sync()
        _ = try await b.sync()
        // p1: deleted on the server, edited here: created again. p2: edited there, deleted here: the edit stays.
        try await a.store.write { _ = try await $0.delete(key: "p1", in: Pilot.collection) }
        try await a.save("Bo 2", key: "p2")
        try await b.save("Ada 2", key: "p1")
        try await b.store.write { _ = try await $0.delete(key: "p2", in: Pilot.collection) }
        _ = try await a.sync()
        let report = try await b.sync()
        #expect(report.conflicts == 2)
        let conflicts = recorder.conflicts.sorted { $0.key < $1.key }
        try #require(conflicts.count == 2)
        #expect(conflicts[0].key == "p1" && conflicts[0].theirs == nil && conflicts[0].mine?["name"] == "Ada 2")
        #expect(conflicts[0].base?["name"] == "Ada")
        #expect(conflicts[1].key == "p2" && conflicts[1].mine == nil && conflicts[1].theirs?["name"] == "Bo 2")
        _ = try await a.sync()
        #expect(try await a.pilot("p1")?.name == "Ada 2")
        #expect(try await b.pilot("p2")?.name == "Bo 2")
        #expect(try await world.isInStep(a))
        #expect(try await world.isInStep(b))
        await world.close(a, b)
    }

    @Test func createCreateOfOneKeyIsAConflictWithAnEmptyBase() async throws {
        let world = try SyncWorld()
        let recorder = RecordingResolver()
        let a = try world.client("a")
        let b = try world.client("b", resolver: recorder.resolver)
        try await a.save("From A", key: "same")
        try await b.save("From B", key: "same")
        _ = try await a.sync()
        let report = try await b.sync()
        #expect(report.conflicts == 1)
        let conflict = try #require(recorder.conflicts.first)
        #expect(conflict.baseRevision == 0 && conflict.base == nil)
        #expect(conflict.mine?["name"] == "From B" && conflict.theirs?["name"] == "From A")
        #expect(try await b.pilot("same")?.name == "From A")
        #expect(try await b.replica.conflictCopies(in: Pilot.collection)["same"]??["name"] == "From B")
        #expect(try await world.isInStep(b))
        await world.close(a, b)
    }

    @Test func aPushRetriedAfterALostAnswerIsAppliedOnce() async throws {
        let world = try SyncWorld()
        let a = try world.client("a")
        try await a.save("Ada", key: "p1")
        a.transport.inject(.dropAnswer, on: "push")
        await #expect(throws: SyncError.self) { try await a.sync() }
        #expect(try await world.revisions("p1") == [1])
        let retry = try await a.sync()
        #expect(retry.pushed == 1 && retry.conflicts == 0)
        #expect(try await world.revisions("p1") == [1])
        // Lost again, then edited again before the retry: the earlier mutation is the base, not a conflict.
        try await a.save("Ada 2", key: "p1")
        a.transport.inject(.dropAnswer, on: "push")
        await #expect(throws: SyncError.self) { try await a.sync() }
        try await a.save("Ada 3", key: "p1")
        let after = try await a.sync()
        #expect(after.conflicts == 0 && after.pushed == 1)
        #expect(try await world.revisions("p1") == [1, 2, 3])
        #expect(try await world.server.load(Pilot.self, key: "p1")?.value.name == "Ada 3")
        #expect(try await world.isInStep(a))
        await world.close(a)
    }

    @Test func aPullStoppedBetweenBatchesResumesWithoutGapOrDuplicate() async throws {
        let world = try SyncWorld(batchLimit: 3)
        let writer = try world.client("writer")
        for index in 0..<20 { try await writer.save("P\(index)", key: "k\(index)") }
        _ = try await writer.sync()
        let reader = try world.client("reader")
        _ = try await reader.sync()  // the snapshot: in step at once
        for index in 0..<20 { try await writer.save("Q\(index)", key: "k\(index)") }
        try await writer.store.write { _ = try await $0.delete(key: "k3", in: Pilot.collection) }
        _ = try await writer.sync()
        // Three batches apply, the fourth request is lost: each applied batch committed with its checkpoint.
        for _ in 0..<3 { reader.transport.inject(.pass, on: "pull") }
        reader.transport.inject(.dropRequest, on: "pull")
        await #expect(throws: SyncError.self) { try await reader.sync() }
        #expect(reader.transport.count("pull") == 3)
        #expect(try await !world.isInStep(reader))
        let resumed = try await reader.sync()
        #expect(resumed.resynced == false)
        #expect(try await world.isInStep(reader))
        #expect(try await reader.pilot("k3") == nil)
        #expect(try await reader.pilot("k19")?.name == "Q19")
        await world.close(writer, reader)
    }

    @Test func aNewEpochResyncsKeepsPendingWritesAndOffersBackWhatTheServerLacks() async throws {
        let world = try SyncWorld()
        let recorder = RecordingResolver()
        let a = try world.client("a", resolver: recorder.resolver)
        try await a.save("Ada", key: "p1")
        try await a.save("Bo", key: "p2")
        try await a.save("Cy", key: "p3")
        _ = try await a.sync()
        try await a.save("Ada offline", key: "p1")
        // The server lost p2 (as a restore would) and starts a new epoch.
        try await world.server.write { _ = try await $0.delete(key: "p2", in: Pilot.collection) }
        try await world.syncServer.startNewEpoch()
        let report = try await a.sync()
        #expect(report.resynced && report.pushed == 2 && report.conflicts == 1)
        #expect(recorder.conflicts.map(\.key) == ["p2"])
        #expect(try await world.server.load(Pilot.self, key: "p1")?.value.name == "Ada offline")
        #expect(try await world.server.load(Pilot.self, key: "p2")?.value.name == "Bo")
        #expect(try await world.revisions("p3") == [1])
        #expect(try await world.isInStep(a))
        await world.close(a)
    }

    @Test func aServerRestoredFromAnOlderBackupIsNoticedAndHealedByItsClients() async throws {
        let world = try SyncWorld()
        let forwarding = ForwardingTransport(LocalSyncTransport(server: world.syncServer))
        let a = try world.client("a", over: forwarding)
        let b = try world.client("b", over: forwarding)
        try await a.save("Ada", key: "p1")
        try await a.save("Bo", key: "p2")
        _ = try await a.sync()
        _ = try await b.sync()
        let backup = world.directory + "/backup.sqlite"
        try world.server.backup(to: backup)
        try await a.save("Ada 2", key: "p1")
        try await a.save("Cy", key: "p3")
        _ = try await a.sync()
        _ = try await b.sync()
        // Restored: the old file comes back, and takes other writes, past the clients' checkpoints.
        await world.server.close()
        let restored = try SQLiteStore(path: backup, store: SyncWorld.configuration())
        for index in 0..<10 {
            try await restored.write { try $0.save(Pilot(name: "X\(index)"), key: "x\(index)") }
        }
        forwarding.target.withLock { $0 = LocalSyncTransport(server: SyncServer(store: restored)) }
        let report = try await b.sync()
        #expect(report.resynced)
        #expect(report.conflicts == 2)  // p1 (the restored server's older revision) and p3 (which it lacks)
        #expect(try await restored.load(Pilot.self, key: "p3")?.value.name == "Cy")
        #expect(try await b.pilot("p1")?.name == "Ada")
        #expect(try await b.replica.conflictCopies(in: Pilot.collection)["p1"]??["name"] == "Ada 2")
        #expect(try await b.pilot("x9")?.name == "X9")
        let reportA = try await a.sync()
        _ = try await b.sync()
        let server = try await SyncWorld.documents(of: restored)
        // A's checkpoint is older than the restore point, but its acknowledged pushes are not: noticed too.
        #expect(reportA.resynced && reportA.conflicts == 1)
        #expect(try await SyncWorld.documents(of: a.store) == server)
        #expect(try await SyncWorld.documents(of: b.store) == server)
        await restored.close()
        await world.close(a, b)
    }

    @Test func prunedChangesResyncFromASnapshot() async throws {
        let world = try SyncWorld(retention: ChangeRetention(maximumCount: 5, maximumAge: nil))
        let a = try world.client("a")
        let b = try world.client("b")
        try await a.save("Ada", key: "p1")
        _ = try await a.sync()
        _ = try await b.sync()
        for index in 0..<30 { try await a.save("P\(index)", key: "k\(index)") }
        try await a.store.write { _ = try await $0.delete(key: "p1", in: Pilot.collection) }
        _ = try await a.sync()
        try await b.save("Local", key: "mine")
        let report = try await b.sync()
        #expect(report.resynced && report.pushed == 1)
        #expect(try await b.pilot("p1") == nil)
        _ = try await a.sync()
        #expect(try await world.isInStep(a))
        #expect(try await world.isInStep(b))
        await world.close(a, b)
    }

    @Test func aNewerMajorIsStoredUntouchedAndNeverOverwritten() async throws {
        let world = try SyncWorld()
        let a = try world.client("a")
        let future: PropertyList = ["majorVersion": 3, "minorVersion": 0, "name": "From the future", "wings": 4]
        try await world.server.write { writer in
            _ = try writer.save(
                envelope: future, key: "f1", in: Pilot.collection, expectedRevision: nil, overwritingNewerMajor: true)
        }
        let report = try await a.sync()
        #expect(report.newerMajor == ["f1"])
        #expect(try await world.isInStep(a))
        await #expect(throws: HangarError.self) { try await a.save("Overwrite", key: "f1") }
        let again = try await a.sync()
        #expect(again.pushed == 0 && again.newerMajor == ["f1"])
        await world.close(a)
    }

    @Test func anOlderMajorPushIsMigratedOnTheWayIn() async throws {
        let world = try SyncWorld()
        var old = StoreConfiguration()
        old.registry = .pilots
        let store = try SQLiteStore(path: world.directory + "/old.sqlite", store: old)
        let replica = SyncReplica(store: store, transport: LocalSyncTransport(server: world.syncServer))
        let v1: PropertyList = ["majorVersion": 1, "minorVersion": 0, "name": "Old", "airplanes": []]
        try await store.write { _ = try await $0.save(envelope: v1, key: "o1", in: Pilot.collection) }
        let report = try await replica.sync(Pilot.collection)
        #expect(report.pushed == 1)
        let stored = try #require(try await world.server.document(in: Pilot.collection, key: "o1"))
        #expect(stored.version.major == 2)
        #expect(try await world.server.load(Pilot.self, key: "o1")?.value.name == "Old")
        #expect(try await store.document(in: Pilot.collection, key: "o1")?.body == stored.body)
        await store.close()
        await world.close()
    }

    @Test func anEditOverABulkUpgradeIsMigratedNotAConflict() async throws {
        let world = try SyncWorld()
        let v1: PropertyList = ["majorVersion": 1, "minorVersion": 0, "name": "Old", "airplanes": []]
        try await world.server.write { _ = try await $0.save(envelope: v1, key: "o1", in: Pilot.collection) }
        var old = StoreConfiguration()
        old.registry = .pilots
        let store = try SQLiteStore(path: world.directory + "/old.sqlite", store: old)
        let recorder = RecordingResolver()
        let replica = SyncReplica(
            store: store, transport: LocalSyncTransport(server: world.syncServer), resolver: recorder.resolver)
        #expect(try await replica.sync(Pilot.collection).pulled == 1)
        // The server upgrades every pilot to 2.0 while the old client edits its 1.x copy.
        let upgrade = try await world.server.upgrade(Pilot.self)
        #expect(upgrade.upgraded == ["o1"])
        let edited: PropertyList = ["majorVersion": 1, "minorVersion": 0, "name": "Old, edited", "airplanes": []]
        try await store.write { _ = try await $0.save(envelope: edited, key: "o1", in: Pilot.collection) }
        let report = try await replica.sync(Pilot.collection)
        #expect(report.conflicts == 0 && report.pushed == 1)
        #expect(recorder.conflicts.isEmpty)
        let stored = try #require(try await world.server.document(in: Pilot.collection, key: "o1"))
        #expect(stored.version.major == 2 && stored.revision == 3)
        #expect(try await world.server.load(Pilot.self, key: "o1")?.value.name == "Old, edited")
        // The client holds what the server stored, byte for byte.
        #expect(try await store.document(in: Pilot.collection, key: "o1")?.body == stored.body)
        await store.close()
        await world.close()
    }

    @Test func keysOfANewerMinorSurviveAClientsEdit() async throws {
        let world = try SyncWorld()
        let newer: PropertyList = [
            "majorVersion": 2, "minorVersion": 7, "name": "Newer", "airplanes": [], "callsign": "NEWER-1",
        ]
        try await world.server.write { _ = try await $0.save(envelope: newer, key: "n1", in: Pilot.collection) }
        let a = try world.client("a")
        _ = try await a.sync()
        try await a.store.update(Pilot.self, key: "n1") { $0.homeAirfield = "ESGG" }
        #expect(try await a.sync().pushed == 1)
        let stored = try #require(try await world.server.document(in: Pilot.collection, key: "n1")).envelope()
        #expect(stored["callsign"] == "NEWER-1" && stored["minorVersion"] == 7 && stored["homeAirfield"] == "ESGG")
        #expect(try await world.isInStep(a))
        await world.close(a)
    }
}
