import Foundation
import Hangar
import HangarHummingbird
import HangarSQLite
import PilotModels
import PropertyList
import Testing

/// A binary GET of a document at the collection's current version is the stored bytes as they are (nothing
/// decoded or encoded again), with the same ETag and conditional answers; an older document is still migrated,
/// and the other formats still encode the value.
@Suite struct StoredBytesTests {
    static let binary = ["Accept": "application/x-plist"]

    @Test func aBinaryGetOfACurrentDocumentIsItsStoredBytes() async throws {
        let fixture = try RoutesFixture()
        try await fixture.test { client in
            let put = try await client.send(
                .put, "/pilots/amelia", headers: Bodies.json, body: try Bodies.pilot("Amelia"))
            #expect(put.status == 201)
        }
        let stored = try #require(try await fixture.withStore { try await $0.document(in: "pilots", key: "amelia") })
        try await fixture.test { client in
            let get = try await client.send(.get, "/pilots/amelia", headers: Self.binary)
            #expect(get.status == 200)
            #expect(get.body == stored.body)
            #expect(get.headers["content-type"] == "application/x-plist")
            #expect(get.etag == "\"1\"")
            let unchanged = try await client.send(
                .get, "/pilots/amelia", headers: Self.binary.merging(["If-None-Match": "\"1\""]) { $1 })
            #expect(unchanged.status == 304)
            #expect(unchanged.etag == "\"1\"")
            #expect(unchanged.body.isEmpty)
            let changed = try await client.send(
                .get, "/pilots/amelia", headers: Self.binary.merging(["If-None-Match": "\"7\""]) { $1 })
            #expect(changed.body == stored.body)
            // Other formats still carry the same value.
            let xml = try await client.send(.get, "/pilots/amelia", headers: ["Accept": "application/x-plist+xml"])
            #expect(try PropertyList(xml: xml.body) == (try PropertyList(binary: stored.body)))
        }
    }

    @Test func anOlderDocumentIsStillMigratedOnABinaryGet() async throws {
        let fixture = try RoutesFixture()
        // The frozen 1.0 file of the Pilots format.
        let frozen = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Migrations/Pilots/1.0/ada.plist").standardizedFileURL
        let version1 = try PropertyList(binary: Array(try Data(contentsOf: frozen)))
        #expect(version1["majorVersion"]?.integerValue?.int64Value == 1)
        let saved = try await fixture.withStore { store in
            try await store.write { try await $0.save(envelope: version1, key: "bessie", in: "pilots") }
        }
        #expect(saved == 1)
        try await fixture.test { client in
            let get = try await client.send(.get, "/pilots/bessie", headers: Self.binary)
            #expect(get.status == 200)
            let value = try PropertyList(binary: get.body)
            #expect(value["majorVersion"]?.integerValue?.int64Value == 2)
            let airplanes = value["airplanes"]?.arrayValue ?? []
            #expect(!airplanes.isEmpty)
            #expect(airplanes.allSatisfy { $0["registrationNumber"] != nil && $0["registration"] == nil })
        }
    }
}
