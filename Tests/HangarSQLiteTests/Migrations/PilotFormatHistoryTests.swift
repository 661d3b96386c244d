import Foundation
import Hangar
import HangarSQLite
import HangarTestSupport
import HangarTesting
import PilotModels
import PropertyList
import Testing

extension Pilot {
    /// The pilot the current version froze (`Migrations/Pilots/2.0/ada.plist`): the same pilot as the older
    /// frozen documents, a few flights later, with an airplane of every kind.
    static let ada = Pilot(
        name: "Ada Lindqvist",
        licenseNumber: "SE-PPL-0042",
        dateOfBirth: Date(timeIntervalSinceReferenceDate: -530_409_600),  // 1984-03-12T00:00:00Z
        homeAirfield: "ESSB",
        airplanes: [
            Airplane(model: "Piper PA-18 Super Cub", registrationNumber: "SE-GHK", airframeHours: 7_402),
            PoweredAirplane(
                model: "Cessna 172S", registrationNumber: "SE-KMP", airframeHours: 12_518, engineHorsepower: 180,
                engineHours: 1_958),
            Glider(
                model: "Schleicher ASK 21", registrationNumber: "SE-UXA", airframeHours: 4_297,
                aerotowLaunchCount: 1_362, winchLaunchCount: 6_071),
        ])
}

/// The Pilots format's history (`Migrations/Pilots/`), checked by the Migration Kit: every frozen version loads
/// with today's code as its expectation says, today's writer and shape match the frozen 2.0, the minor 1.1 only
/// added an optional key, generated 1.x and 2.0 documents load or are refused with a typed error.
@Suite struct PilotFormatHistoryTests {
    /// 1.x wrote `airframeHours` as decimal text and `kind` only as `glider` (`PilotFormat.v1ToV2` refuses
    /// anything else, as it should): there, generated 1.x documents hold what 1.x wrote.
    static let history = FormatHistory(
        Pilot.self, registry: .pilots, folder: repositoryRoot + "/Migrations/Pilots", samples: [.ada],
        values: [
            .decimalText(majors: 1...1, path: "airplanes[].airframeHours"),
            FormatValues(majors: 1...1, path: "airplanes[].kind", oneOf: ["glider"]),
        ])

    @Test func pilotFormatsHold() throws {
        try Self.history.verify()
    }

    // MARK: Newer documents are never misread or destroyed

    static func futureEnvelope() throws -> PropertyList {
        let content = try #require(ClassRegistry.pilots.encode(Pilot.ada).dictionaryValue)
        var envelope = try #require(Pilot.format.seal(content).dictionaryValue)
        envelope["majorVersion"] = 3
        envelope["fullName"] = envelope.removeValue(forKey: "name")  // 3.0 changed a meaning: 2.x must not guess
        return .dictionary(envelope)
    }

    static func makeStore(path: String? = nil) throws -> SQLiteStore {
        var configuration = StoreConfiguration()
        configuration.registry = ClassRegistry.pilots
        configuration.collections[Pilot.collection] = CollectionOptions(format: Pilot.format)
        if let path { return try SQLiteStore(path: path, store: configuration) }
        return try SQLiteStore.inMemory(store: configuration)
    }

    @Test func aFutureMajorIsRefusedByTheFormatNamingBothVersions() throws {
        #expect {
            try Pilot.format.open(Self.futureEnvelope(), name: "pilots/ada")
        } throws: { error in
            guard let error = error as? HangarError else { return false }
            return error.code == .newerMajor && error.storedVersion == DocumentVersion(major: 3, minor: 0)
                && error.description
                    == "pilots/ada: major version 3 is newer than this code reads (2); the document is left as it is"
        }
    }

    @Test func aFutureMajorFileIsRefusedOnImportAndLeftUntouched() async throws {
        let path = try temporaryDirectory() + "/ada.plist"
        let bytes = try Self.futureEnvelope().encoded(as: .binary)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let store = try Self.makeStore()
        await #expect {
            try await store.importFile(path, into: Pilot.collection)
        } throws: { error in
            guard case HangarError.newerMajor = error else { return false }
            return true
        }
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == bytes)
        #expect(try await store.read { try $0.count(in: Pilot.collection) } == 0)
    }

    @Test func aFutureMajorInTheStoreIsRefusedAndLeftUntouched() async throws {
        let path = try temporaryDirectory() + "/store.sqlite"
        let future = try Self.futureEnvelope()
        do {
            // A newer app wrote it: its store knows 3.0, so it has no reason to refuse.
            let newerApp = try SQLiteStore(path: path)
            try await newerApp.write { try $0.save(envelope: future, key: "ada", in: Pilot.collection) }
        }
        let store = try Self.makeStore(path: path)
        let before = try await #require(try store.read { try $0.document(in: Pilot.collection, key: "ada") })
        #expect(throws: HangarError.self) { try store.read { try $0.load(Pilot.self, key: "ada") } }
        #expect {
            try store.write { try $0.save(Pilot.ada, key: "ada") }
        } throws: { error in
            guard case HangarError.newerMajor = error else { return false }
            return true
        }
        let report = try await store.upgrade(Pilot.self)
        #expect(report.newer == ["ada"])
        #expect(report.upgraded.isEmpty)
        let after = try await #require(try store.read { try $0.document(in: Pilot.collection, key: "ada") })
        #expect(after == before)
        #expect(try after.envelope() == future)
    }

    // MARK: The 1 → 2 step on raw dictionaries

    static func v1Document(airplane: PropertyList, minor: Int64 = 0) -> PropertyList {
        ["majorVersion": 1, "minorVersion": .integer(.init(minor)), "name": "Test Pilot", "airplanes": [airplane]]
    }

    @Test func theStepConvertsTheWholeUInt64RangeOfHours() throws {
        let document = Self.v1Document(airplane: [
            "class": "Airplane", "model": "m", "registration": "r", "airframeHours": "18446744073709551615",
        ])
        let opened = try Pilot.format.open(document)
        #expect(
            opened.content["airplanes"] == [
                [
                    "class": "Airplane", "model": "m", "registrationNumber": "r",
                    "airframeHours": .integer(.init(UInt64.max)),
                ]
            ])
    }

    static let refusedAirplanes: [(PropertyList, String)] = [
        (
            ["class": "Airplane", "model": "m", "registration": "r", "airframeHours": "12h"],
            #"airplanes[0].airframeHours: expected a whole number of hours, found "12h""#
        ),
        (
            ["class": "Airplane", "model": "m", "registration": "r", "airframeHours": "-1"],
            #"airplanes[0].airframeHours: expected a whole number of hours, found "-1""#
        ),
        (
            ["class": "Airplane", "kind": "balloon", "model": "m", "registration": "r", "airframeHours": "1"],
            #"airplanes[0].kind: 1.x never wrote the airplane kind "balloon""#
        ),
        ("not an airplane", "airplanes[0]: expected a dictionary, found string"),
    ]

    @Test(arguments: refusedAirplanes)
    func theStepRefusesWhatItCannotUnderstand(airplane: PropertyList, reason: String) {
        #expect {
            try Pilot.format.open(Self.v1Document(airplane: airplane), name: "pilots/x")
        } throws: { error in
            guard let error = error as? HangarError else { return false }
            return error.code == .migrationFailed
                && error.description
                    == "pilots/x: migration \"\(PilotFormat.v1ToV2.name)\" from major 1 failed: \(reason)"
        }
    }

    @Test func aV1PilotWithoutAirplanesMigrates() throws {
        let opened = try Pilot.format.open([
            "majorVersion": 1, "minorVersion": 1, "name": "Solo", "homeAirfield": "ESSB",
        ])
        let pilot = try ClassRegistry.pilots.decode(Pilot.self, from: .dictionary(opened.content))
        #expect(pilot.name == "Solo")
        #expect(pilot.homeAirfield == "ESSB")
        #expect(pilot.airplanes.isEmpty)
    }
}
