import Foundation
import Hangar
import HangarSQLite
import HangarSync
import PilotModels
import PropertyList
import Testing

/// Keys, users and client ids are told apart by their bytes on every sync path: two keys equal but for Unicode
/// normalization are two documents in a pull, a snapshot and a push, with or without users.
@Suite struct SyncExactKeyTests {
    static let cafe = ("caf\u{E9}", "cafe\u{301}")

    @Test(arguments: [nil, "ada"] as [String?])
    func aPullReturnsBothOfTwoKeysEqualButForNormalization(user: String?) async throws {
        let world = try SyncWorld()
        let server = world.syncServer
        let start = try await server.snapshot(of: Pilot.collection, user: user).checkpoint
        for (id, key) in [Self.cafe.0, Self.cafe.1].enumerated() {
            let answer = try await server.push(
                try SyncScopeTests.push(key, "Caf\(id)", id: id + 1), to: Pilot.collection, user: user)
            #expect(answer.outcomes.first == .applied(revision: 1), "\(answer.outcomes)")
        }
        let pulled = try await server.pull(Pilot.collection, after: start, user: user)
        #expect(pulled.items.count == 2)
        #expect(Set(pulled.items.map { Array($0.key.utf8) }) == [Array(Self.cafe.0.utf8), Array(Self.cafe.1.utf8)])
        let snapshot = try await server.snapshot(of: Pilot.collection, user: user)
        #expect(snapshot.items.count == 2)
    }

    @Test func usersEqualButForNormalizationOwnApart() async throws {
        let world = try SyncWorld()
        let server = world.syncServer
        let (first, second) = ("jos\u{E9}", "jose\u{301}")
        #expect(
            try await server.push(try SyncScopeTests.push("k", "A", id: 1), to: Pilot.collection, user: first)
                .outcomes.first == .applied(revision: 1))
        let refused = try await server.push(
            try SyncScopeTests.push("k", "B", id: 1), to: Pilot.collection, user: second)
        guard case .rejected(let code, _) = refused.outcomes.first else {
            Issue.record("expected a rejection, got \(refused.outcomes)")
            return
        }
        #expect(code == "notFound")
        #expect(try await server.snapshot(of: Pilot.collection, user: second).items.isEmpty)
    }

    @Test func aClientIdWithASlashHiddenInACharacterIsRefused() async throws {
        let world = try SyncWorld()
        // "/\u{301}" is one Character, which String.contains("/") does not find; its bytes hold a slash.
        let push = SyncPush(clientID: "a/\u{301}b", mutations: [])
        await #expect(throws: SyncError.self) { try await world.syncServer.push(push, to: Pilot.collection) }
    }

    @Test func replicaReportsKeepBothKeys() {
        var report = SyncReport(collection: Pilot.collection)
        report.rejected[ExactString(Self.cafe.0)] = "one"
        report.rejected[ExactString(Self.cafe.1)] = "two"
        #expect(report.rejected.count == 2)
    }

    @Test func twoDevicesSyncBothOfTwoKeysEqualButForNormalization() async throws {
        let world = try SyncWorld()
        let a = try world.client("a")
        let b = try world.client("b")
        try await a.save("NFC", key: Self.cafe.0)
        try await a.save("NFD", key: Self.cafe.1)
        _ = try await a.sync()
        _ = try await b.sync()
        #expect(try await SyncWorld.documents(of: world.server).count == 2)
        #expect(try await world.isInStep(a))
        #expect(try await world.isInStep(b))
        #expect(try await b.pilot(Self.cafe.0)?.name == "NFC")
        #expect(try await b.pilot(Self.cafe.1)?.name == "NFD")
        // An edit of one spelling on b reaches a under that spelling only.
        try await b.save("NFD 2", key: Self.cafe.1)
        _ = try await b.sync()
        _ = try await a.sync()
        #expect(try await a.pilot(Self.cafe.0)?.name == "NFC")
        #expect(try await a.pilot(Self.cafe.1)?.name == "NFD 2")
        await world.close(a, b)
    }

    @Test func aMergeKeepsBothOfTwoFieldsEqualButForNormalization() throws {
        let mine: PropertyList.Dictionary = [Self.cafe.0: "mine", "name": "A"]
        let theirs: PropertyList.Dictionary = [Self.cafe.1: "theirs", "name": "A"]
        let merged = try #require(SyncResolver.merge(base: ["name": "A"], mine: mine, theirs: theirs))
        #expect(merged.count == 3)
        #expect(merged[Self.cafe.0] == "mine" && merged[Self.cafe.1] == "theirs")
    }
}
