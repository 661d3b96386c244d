import Foundation
import Hangar
import HangarSQLite
import HangarSync
import PilotModels
import PropertyList
import Testing

/// `SyncServer` scoped by user (`SyncOwnership`): each document is its creator's; pulls and snapshots hold only
/// the user's documents, and a push over another user's key is rejected as not found. And `SyncWriteAnswers`.
@Suite struct SyncScopeTests {
    static func body(_ name: String) throws -> [UInt8] {
        try PropertyList.dictionary(["majorVersion": 2, "minorVersion": 0, "name": .string(name)]).encoded(as: .binary)
    }

    static func push(_ key: String, _ name: String, id: Int, base: Int = 0) throws -> SyncPush {
        SyncPush(clientID: "device", mutations: [SyncMutation(id: id, key: key, base: base, body: try body(name))])
    }

    @Test func eachUserPullsAndPushesOnlyTheirOwnDocuments() async throws {
        let world = try SyncWorld()
        let server = world.syncServer
        let adas = try await server.push(try Self.push("ada", "Ada", id: 1), to: Pilot.collection, user: "ada")
        #expect(adas.outcomes.first == .applied(revision: 1))
        let bos = try await server.push(try Self.push("bo", "Bo", id: 1), to: Pilot.collection, user: "bo")
        #expect(bos.outcomes.first == .applied(revision: 1))
        // Bo writing over Ada's key, with her revision as base or as a create: not found, nothing written.
        for base in [0, 1] {
            let refused = try await server.push(
                try Self.push("ada", "Not Ada", id: 2 + base, base: base), to: Pilot.collection, user: "bo")
            guard case .rejected(let code, _) = refused.outcomes.first else {
                Issue.record("expected a rejection, got \(refused.outcomes)")
                continue
            }
            #expect(code == "notFound")
        }
        let owner = try await world.server.read { try await SyncOwnership.owner(of: "ada", in: Pilot.collection, $0) }
        #expect(owner == "ada")
        let snapshot = try await server.snapshot(of: Pilot.collection, user: "bo")
        #expect(snapshot.items.map(\.key) == ["bo"])
        let open = try await server.snapshot(of: Pilot.collection)
        #expect(open.items.map(\.key).sorted() == ["ada", "bo"])
        let start = SyncCheckpoint(storeID: open.checkpoint.storeID, epoch: open.checkpoint.epoch, through: 0, mark: "")
        let pulled = try await server.pull(Pilot.collection, after: start, user: "ada")
        #expect(pulled.items.map(\.key) == ["ada"])
        #expect(pulled.items.first?.body == (try Self.body("Ada")))
    }
}
