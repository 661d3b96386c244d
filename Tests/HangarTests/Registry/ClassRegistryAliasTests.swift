import Hangar
import HangarSQLite
import PilotModels
import PropertyList
import Testing

/// A model type renamed in code: it was `Taildragger` (tag "Taildragger"), it is now `Bushplane`.
final class Bushplane: Airplane, @unchecked Sendable {}

/// Class-tag aliases: old tags stay readable, as allow-list entries, without ever being written.
@Suite struct ClassRegistryAliasTests {
    static let registry: ClassRegistry = {
        var registry = ClassRegistry.pilots
        registry.register(Bushplane.self, tag: "Bushplane", as: Airplane.self)
        registry.alias("Taildragger", to: "Bushplane", as: Airplane.self)  // the type was renamed
        registry.alias("MotorAirplane", to: "PoweredAirplane", as: Airplane.self)  // a retired tag, replaced
        return registry
    }()

    static func airplane(tagged tag: String, _ extra: PropertyList.Dictionary = [:]) -> PropertyList {
        var fields: PropertyList.Dictionary = [
            "class": .string(tag), "model": "m", "registrationNumber": "r", "airframeHours": 1,
        ]
        fields.merge(extra) { _, new in new }
        return .dictionary(fields)
    }

    @Test func aRenamedTypeReadsDocumentsWrittenUnderItsOldTagAndWritesItsNewOne() throws {
        let value: PropertyList = ["name": "X", "airplanes": [Self.airplane(tagged: "Taildragger")]]
        let pilot = try Self.registry.decode(Pilot.self, from: value)
        #expect(type(of: pilot.airplanes[0]) == Bushplane.self)
        #expect(Self.registry.encode(pilot)["airplanes"]?[0]?["class"] == "Bushplane")
    }

    @Test func aRetiredTagIsReadByItsReplacementWithEveryField() throws {
        let old = Self.airplane(tagged: "MotorAirplane", ["engineHorsepower": 180, "engineHours": 12])
        let airplanes = try Self.registry.decode([Airplane].self, from: [old])
        let powered = try #require(airplanes[0] as? PoweredAirplane)
        #expect((powered.engineHorsepower, powered.engineHours) == (180, 12))
        #expect(Self.registry.encode(airplanes)[0]?["class"] == "PoweredAirplane")
    }

    @Test func withoutTheAliasTheOldTagIsUnknown() {
        expectModelError(.unknownClassTag, #"[0]: unknown class tag "MotorAirplane" for Airplane"#) {
            () throws(HangarError) in
            try ClassRegistry.pilots.decode([Airplane].self, from: [Self.airplane(tagged: "MotorAirplane")])
        }
    }

    @Test func anAliasIsAnAllowListEntryForItsBaseOnly() {
        #expect(Self.registry.tags(for: Airplane.self).contains("MotorAirplane"))
        #expect(Self.registry.tag(for: PoweredAirplane.self) == "PoweredAirplane")
        #expect(Self.registry.tags(for: Pilot.self).isEmpty)
        expectModelError(
            .disallowedClassTag, #"class tag "Taildragger" is registered for Airplane, not for Bushplane"#
        ) { () throws(HangarError) in
            try Self.registry.decode(Bushplane.self, from: Self.airplane(tagged: "Taildragger"))
        }
    }

    @Test func aStoredDocumentUnderAnOldTagLoadsAndIsRewrittenUnderTheNewOne() throws {
        var configuration = StoreConfiguration()
        configuration.registry = Self.registry
        let store = try SQLiteStore.inMemory(store: configuration)
        let envelope: PropertyList = [
            "majorVersion": 2, "minorVersion": 0, "name": "X",
            "airplanes": [Self.airplane(tagged: "Taildragger")],
        ]
        try store.write { try $0.save(envelope: envelope, key: "x", in: Pilot.collection) }
        let loaded = try #require(try store.read { try $0.load(Pilot.self, key: "x") })
        #expect(loaded.value.airplanes.first is Bushplane)
        try store.write { try $0.save(loaded.value, key: "x") }
        let saved = try #require(try store.read { try $0.document(in: Pilot.collection, key: "x") }?.envelope())
        #expect(saved["airplanes"]?[0]?["class"] == "Bushplane")
    }

    @Test func aliasingToAnUnregisteredTagIsAProgrammerError() async {
        await #expect(processExitsWith: .failure) {
            var registry = ClassRegistry.pilots
            registry.alias("Zeppelin", to: "Airship", as: Airplane.self)
        }
    }

    @Test func aliasingATagTakenByAnotherTypeIsAProgrammerError() async {
        await #expect(processExitsWith: .failure) {
            var registry = ClassRegistry.pilots
            registry.alias("Glider", to: "PoweredAirplane", as: Airplane.self)
        }
    }
}
