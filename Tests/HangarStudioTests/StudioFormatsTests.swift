import Foundation
import HTTPTypes
import Hangar
import HangarSQLite
import HangarStudio
import HangarTestSupport
import Hummingbird
import HummingbirdTesting
import PropertyList
import Testing

/// `hangar studio --formats DIR`: the Overview's format histories (`api/formats`), in process over a real store.
@Suite struct StudioFormatsTests {
    @Test func theHistoriesShowFrozenVersionsAndTheCensus() async throws {
        let store = try SQLiteStore(path: try ScratchFolders.make("studio-formats") + "/s.sqlite")
        for (key, version) in [("ada-10", "1.0"), ("ada-11", "1.1"), ("ada-20", "2.0")] {
            try await store.importFile(
                repositoryRoot + "/Migrations/Pilots/\(version)/ada.plist", into: "pilots", key: key)
        }
        try await store.write { w in
            try await w.save(
                envelope: ["majorVersion": 3, "minorVersion": 0, "name": "F"], key: "future", in: "pilots")
        }
        var options = StudioOptions()
        options.formats = [repositoryRoot + "/Migrations/Pilots"]
        let router = Router()
        HangarStudio(store: store, options: options).addRoutes(to: router)
        try await Application(router: router).test(.router) { client in
            let answer = try await client.json("/api/formats")
            let history = try #require(answer["histories"]?.arrayValue?.first)
            #expect(history["collection"] == "pilots")
            #expect(history["frozen"] == ["1.0", "1.1", "2.0"])
            let census = history["census"]?.arrayValue ?? []
            #expect(census.map { $0["version"] } == ["1.0", "1.1", "2.0", "3.0"])
            #expect(census.map { $0["status"] } == ["frozen", "frozen", "current", "newer"])
        }
        await store.close()
    }
}
