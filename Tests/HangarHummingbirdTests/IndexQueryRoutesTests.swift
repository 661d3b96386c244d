import Foundation
import Hangar
import HangarHummingbird
import HangarSQLite
import HangarTestSupport
import Hummingbird
import HummingbirdTesting
import PilotModels
import PropertyList
import Testing

/// `GET /C?index=…` over a live server and HTTP client: keyset pages in both orders with cursors, prefixes and
/// ranges of a compound index, counts, documents, and 400 with a reason for each bad parameter.
@Suite struct IndexQueryRoutesTests {
    static func configuration() -> StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.registry = .pilots
        configuration.collections[Pilot.collection] = .documents(
            of: Pilot.self,
            indexes: [
                .compound(name: "homeAirfieldName", [.path("homeAirfield"), .path("name")]), .path("homeAirfield"),
            ])
        return configuration.keepingNoSyncHistory()
    }

    @Test func indexQueriesPageCountAndRefuse() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.path + "/store.sqlite", store: Self.configuration())
        try await store.write { transaction in
            for (key, airfield, name) in [
                ("a", "ESSB", "Ada"), ("b", "ESSA", "Bo"), ("c", "ESSB", "Cy"), ("d", "ESSB", "Ada"), ("e", "5", "Ed"),
            ] {
                try await transaction.save(
                    envelope: [
                        "majorVersion": 2, "minorVersion": 0, "name": .string(name), "homeAirfield": .string(airfield),
                        "airplanes": [],
                    ], key: key, in: "pilots")
            }
        }
        let router = Router(options: .autoGenerateHeadEndpoints)
        router.add(middleware: HangarErrorMiddleware())
        HangarRoutes(store: store, collections: [.documents(Pilot.self)]).addRoutes(to: router)
        do {
            try await Application(router: router).test(.live) { client in
                func json(_ path: String) async throws -> PropertyList.Dictionary {
                    let reply = try await client.send(.get, path)
                    #expect(reply.status == 200, "\(path): \(reply.text)")
                    return try PropertyList(json: reply.body).dictionaryValue ?? [:]
                }
                // Today's form keeps working: text that is not JSON is a string.
                #expect(try await json("/pilots?index=homeAirfield&value=ESSB")["keys"] == ["a", "c", "d"])
                #expect(try await json("/pilots?index=homeAirfield&value=%225%22")["keys"] == ["e"])
                // Pages with a cursor, in order, then descending as the exact reverse.
                var keys: [PropertyList] = []
                var path = "/pilots?index=homeAirfieldName&prefix=ESSB&limit=2"
                while true {
                    let page = try await json(path)
                    keys += page["keys"]?.arrayValue ?? []
                    guard let next = page["next"]?.stringValue else { break }
                    path = "/pilots?index=homeAirfieldName&prefix=ESSB&limit=1&after=\(next)"
                }
                #expect(keys == ["a", "d", "c"])
                #expect(
                    try await json("/pilots?index=homeAirfieldName&prefix=%5B%22ESSB%22%5D&order=desc")["keys"] == [
                        "c", "d", "a",
                    ])
                let ranged = try await json(
                    "/pilots?index=homeAirfieldName&from=%5B%22ESSA%22%5D&before_value=%5B%22ESSB%22%2C%22Cy%22%5D")
                #expect(ranged["keys"] == ["b", "a", "d"] && ranged["next"] == nil)
                #expect(
                    try await json("/pilots?index=homeAirfieldName&value=%5B%22ESSB%22%2C%22Ada%22%5D")["keys"] == [
                        "a", "d",
                    ])
                #expect(try await json("/pilots?index=homeAirfieldName")["keys"] == ["e", "b", "a", "d", "c"])
                #expect(try await json("/pilots?index=homeAirfieldName&prefix=ESSB&count=true") == ["count": 3])
                let documents = try await json("/pilots?index=homeAirfield&value=ESSA&include=documents")
                let first = documents["documents"]?.arrayValue?.first?.dictionaryValue
                #expect(first?["key"] == "b" && first?["revision"] == 1)
                #expect(first?["value"]?.dictionaryValue?["name"] == "Bo")
                // Bad parameters: 400 with a reason.
                let cursor = try #require(try await json("/pilots?index=homeAirfieldName&limit=1")["next"]?.stringValue)
                for bad in [
                    "index=nope", "index=homeAirfield&value=1&prefix=2", "index=homeAirfield&from=1&after_value=2",
                    "index=homeAirfield&order=up", "index=homeAirfield&limit=0", "index=homeAirfield&limit=5000",
                    "index=homeAirfield&after=garbage", "index=homeAirfield&after=\(cursor)",
                    "index=homeAirfieldName&order=desc&after=\(cursor)", "index=homeAirfield&prefix=ESSB",
                    "index=homeAirfield&value=%5B1%5D", "index=homeAirfield&offset=2", "index=homeAirfield&count=yes",
                    "index=homeAirfield&include=all",
                ] {
                    let reply = try await client.send(.get, "/pilots?\(bad)")
                    #expect(reply.status == 400 && !reply.text.isEmpty, "\(bad): \(reply.status) \(reply.text)")
                }
                let unknown = try await client.send(.get, "/pilots?index=nope")
                #expect(unknown.text.contains("homeAirfield, homeAirfieldName"), "\(unknown.text)")
            }
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }
}
