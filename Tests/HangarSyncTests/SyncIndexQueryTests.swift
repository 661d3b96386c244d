import Foundation
import Hangar
import HangarSQLite
import HangarSync
import PilotModels
import PropertyList
import Testing

/// A replica's local store answers index queries as any store does: its indexes (declared in the replica's own
/// configuration, whatever the server declares) are kept by the pulls' writes, in the same transactions.
@Suite struct SyncIndexQueryTests {
    static func pilot(_ name: String, _ airfield: String, hours: [UInt64]) -> Pilot {
        Pilot(
            name: name, homeAirfield: airfield,
            airplanes: hours.map { Airplane(model: "Piper PA-18", registrationNumber: "SE-\(name)", airframeHours: $0) }
        )
    }

    @Test func aReplicasLocalStoreAnswersAnIndexPageAfterAPull() async throws {
        let world = try SyncWorld()
        try await world.server.write { transaction in
            try await transaction.save(Self.pilot("Cy", "ESSB", hours: [300, 50]), key: "p1")
            try await transaction.save(Self.pilot("Ann", "ESSB", hours: [100]), key: "p2")
            try await transaction.save(Self.pilot("Bo", "ESSA", hours: [200]), key: "p3")
            try await transaction.save(Self.pilot("Di", "ESSB", hours: [400, 350]), key: "p4")
        }
        var configuration = SyncWorld.configuration()
        configuration.collections[Pilot.collection]?.indexes = Pilot.queryIndexes
        let local = try SQLiteStore(path: world.directory + "/phone.sqlite", store: configuration)
        let replica = SyncReplica(store: local, transport: LocalSyncTransport(server: world.syncServer))
        #expect(try await replica.sync(Pilot.collection).pulled == 4)

        var query = IndexQuery(
            collection: Pilot.collection, index: Pilot.homeAirfieldNameIndex.name, match: .prefix(["ESSB"]), limit: 2)
        let first = try await local.read { [query] in try await $0.page(query, documents: true) }
        #expect(first.keys == ["p2", "p1"] && first.documents.map(\.key) == ["p2", "p1"])
        query.after = first.next
        let second = try await local.read { [query] in try await $0.page(query) }
        #expect(second.keys == ["p4"] && second.next == nil)
        let hours = IndexQuery(
            collection: Pilot.collection, index: Pilot.airframeHoursIndex.name,
            match: .range(from: .included(100), to: nil), order: .descending)
        let byHours = try await local.read { try await $0.page(hours) }
        #expect(byHours.keys == ["p4", "p1", "p3", "p2"])

        // What the next pull brings moves the answers: an airfield changed, a pilot deleted.
        try await world.server.write { transaction in
            try await transaction.save(Self.pilot("Bo", "ESSB", hours: [200]), key: "p3")
            _ = try await transaction.delete(key: "p4", in: Pilot.collection)
        }
        _ = try await replica.sync(Pilot.collection)
        query.after = nil
        query.limit = 10
        let moved = try await local.read { [query] in try await $0.page(query) }
        let rehoured = try await local.read { try await $0.page(hours) }
        let counted = try await local.read { try await $0.count(hours) }
        #expect(moved.keys == ["p2", "p3", "p1"])
        #expect(rehoured.keys == ["p1", "p3", "p2"] && counted == 3)
        await local.close()
        await world.close()
    }
}
