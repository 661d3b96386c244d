import Hangar
import HangarSQLite
import HangarTestSupport
import PropertyList
import Testing

/// A model that opts in keeps the keys a newer minor added inside it, through an older app's load and save.
@Suite struct SQLiteNestedUnknownKeysTests {
    struct Waypoint: PropertyListRepresentable, Equatable {
        enum Key: String, CaseIterable { case name, altitude }
        var name: String
        var altitude: Int
        /// What a newer version added, kept and written back.
        var extra: PropertyList.Dictionary = [:]

        init(name: String, altitude: Int) {
            self.name = name
            self.altitude = altitude
        }

        init(propertyList: PropertyList) throws(HangarError) {
            let reader = try DictionaryReader(propertyList)
            name = try reader.read(Key.name)
            altitude = try reader.read(Key.altitude)
            extra = reader.unknownEntries(Key.self)
        }

        var propertyListRepresentation: PropertyList {
            var writer = DictionaryWriter(.dictionary(extra))
            writer.set(Key.name, name)
            writer.set(Key.altitude, altitude)
            return writer.propertyList
        }
    }

    struct Route: VersionedDocument {
        static let collection = "routes"
        static let format = DocumentFormat(current: DocumentVersion(major: 1, minor: 0))
        var waypoints: [Waypoint]

        init(waypoints: [Waypoint]) {
            self.waypoints = waypoints
        }

        init(propertyList: PropertyList) throws(HangarError) {
            waypoints = try DictionaryReader(propertyList).read("waypoints")
        }

        var propertyListRepresentation: PropertyList {
            var writer = DictionaryWriter()
            writer.set("waypoints", waypoints)
            return writer.propertyList
        }
    }

    @Test func anOlderAppKeepsNestedAdditions() throws {
        let store = try SQLiteStore.inMemory()
        // Written by a 1.3 app: each waypoint gained a "frequency", the route a "notes".
        let newer: PropertyList = [
            "majorVersion": 1, "minorVersion": 3, "notes": "via the coast",
            "waypoints": [["name": "ESSB", "altitude": 47, "frequency": 118.1], ["name": "ESKN", "altitude": 140]],
        ]
        try store.write { try $0.save(envelope: newer, key: "r", in: "routes") }
        let loaded = try #require(try store.read { try $0.load(Route.self, key: "r") })
        var route = loaded.value
        route.waypoints[1].altitude = 150
        try store.write { try $0.save(route, key: "r", expectedRevision: loaded.revision) }
        let stored = try #require(try store.read { try $0.document(in: "routes", key: "r") })
        #expect(
            try stored.envelope() == [
                "majorVersion": 1, "minorVersion": 3, "notes": "via the coast",
                "waypoints": [
                    ["name": "ESSB", "altitude": 47, "frequency": 118.1], ["name": "ESKN", "altitude": 150],
                ],
            ])
    }

    @Test func unknownEntriesAreThoseTheKeyDoesNotName() throws {
        let reader = try DictionaryReader(["name": "A", "altitude": 1, "new": true])
        #expect(reader.unknownEntries(Waypoint.Key.self) == ["new": true])
    }
}
