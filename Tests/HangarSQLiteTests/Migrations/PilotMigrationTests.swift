import Foundation
import Hangar
import HangarSQLite
import HangarTestSupport
import PilotModels
import PropertyList
import Synchronization
import Testing

/// The Pilots format's frozen history: every shipped version still loads, today's writes are byte-stable,
/// newer documents are never misread or destroyed.
@Suite struct PilotMigrationTests {
    // MARK: The corpus is complete

    @Test func everyShippedVersionHasAFrozenFileTwinAndExpectation() throws {
        #expect(
            MigrationCorpus.versions.last == Pilot.format.current,
            """
            the current version \(Pilot.format.current) has no frozen file: add it to MigrationCorpus.versions \
            and run the tests once with HANGAR_RECORD_MIGRATIONS=current
            """)
        let expected = Set(
            MigrationCorpus.versions.flatMap {
                ["pilot-v\($0).plist", "pilot-v\($0).xml", "expected/pilot-v\($0).xml"]
            })
        let files = try FileManager.default.subpathsOfDirectory(atPath: MigrationCorpus.directory).filter {
            $0.hasSuffix(".plist") || $0.hasSuffix(".xml")
        }
        #expect(Set(files) == expected)
    }

    @Test(arguments: MigrationCorpus.versions)
    func frozenFileIsBinaryAndItsTwinHoldsTheSameValue(version: DocumentVersion) throws {
        let bytes = try MigrationCorpus.bytes(MigrationCorpus.frozenPath(version))
        #expect(bytes.starts(with: Array("bplist00".utf8)))
        let value = try PropertyList(binary: bytes)
        #expect(try PropertyList(xml: MigrationCorpus.bytes(MigrationCorpus.twinPath(version))) == value)
        #expect(try DocumentFormat.envelopeVersion(of: value) == version)
    }

    // MARK: Every frozen file loads with today's code

    @Test(arguments: MigrationCorpus.versions)
    func frozenFileOpensWithTodaysFormatAndRegistry(version: DocumentVersion) throws {
        let frozen = try MigrationCorpus.value(MigrationCorpus.frozenPath(version))
        let events = Mutex<[String]>([])
        let opened = try Pilot.format.open(frozen, name: "frozen") { event in
            events.withLock { $0.append(event.description) }
        }
        #expect(opened.storedVersion == version)
        if version.major < Pilot.format.current.major {
            #expect(
                events.withLock { $0 } == [
                    "migrated frozen from \(version) to 2.0: "
                        + "registrationNumber, integer airframeHours, PoweredAirplane and Glider tags"
                ])
        } else {
            #expect(events.withLock { $0 }.isEmpty)
        }
        let pilot = try ClassRegistry.pilots.decode(Pilot.self, from: .dictionary(opened.content))
        let today = try MigrationCorpus.currentEnvelope(pilot)
        let expectationPath = MigrationCorpus.expectationPath(version)
        if MigrationCorpus.recordMode == .expectations {
            try MigrationCorpus.write(today.encoded(as: .xml), to: expectationPath)
            return
        }
        let expected = try MigrationCorpus.value(expectationPath)
        #expect(today == expected)
        // The step's raw output is already exactly what the model writes: no key left behind to be dropped on save.
        var content = try #require(expected.dictionaryValue)
        content[DocumentFormat.majorKey] = nil
        content[DocumentFormat.minorKey] = nil
        #expect(opened.content == content)
    }

    @Test(arguments: MigrationCorpus.versions)
    func frozenFileLoadsThroughTheStore(version: DocumentVersion) async throws {
        let store = try MigrationCorpus.makeStore()
        #expect(
            try await store.importFile(MigrationCorpus.frozenPath(version), into: Pilot.collection, key: "ada") == 1)
        let loaded = try await #require(try store.read { try $0.load(Pilot.self, key: "ada") })
        #expect(loaded.storedVersion == version)
        #expect(loaded.wasMigrated == (version < Pilot.format.current))
        let expected = try MigrationCorpus.value(MigrationCorpus.expectationPath(version))
        #expect(try MigrationCorpus.currentEnvelope(loaded.value) == expected)
        // Reading migrates in memory only: the stored document is still the old version.
        let stored = try await #require(try store.read { try $0.document(in: Pilot.collection, key: "ada") })
        #expect(stored.version == version)
        #expect(stored.revision == 1)
    }

    @Test func theMigratedPilotKeepsEverySubclassField() throws {
        let frozen = try MigrationCorpus.value(MigrationCorpus.frozenPath(DocumentVersion(major: 1, minor: 0)))
        let opened = try Pilot.format.open(frozen)
        let pilot = try ClassRegistry.pilots.decode(Pilot.self, from: .dictionary(opened.content))
        #expect(pilot.name == "Ada Lindqvist")
        #expect(pilot.homeAirfield == nil)  // 1.0 had no home airfield
        #expect(pilot.airplanes.map { "\(type(of: $0))" } == ["Airplane", "PoweredAirplane", "Glider"])
        #expect(pilot.airplanes.map(\.registrationNumber) == ["SE-GHK", "SE-KMP", "SE-UXA"])
        #expect(pilot.airplanes.map(\.airframeHours) == [7_350, 12_400, 4_210])
        let powered = try #require(pilot.airplanes[1] as? PoweredAirplane)
        #expect((powered.engineHorsepower, powered.engineHours) == (180, 1_840))
        let glider = try #require(pilot.airplanes[2] as? Glider)
        #expect((glider.aerotowLaunchCount, glider.winchLaunchCount) == (1_320, 5_870))
    }

    @Test func bulkUpgradeRewritesEveryOldFrozenFileAsItsExpectation() async throws {
        let store = try MigrationCorpus.makeStore()
        for version in MigrationCorpus.versions {
            try await store.importFile(MigrationCorpus.frozenPath(version), into: Pilot.collection, key: "v\(version)")
        }
        let progress = Mutex<[Int]>([])
        let report = try await store.upgrade(Pilot.self, batchSize: 1) { step in
            progress.withLock { $0.append(step.upgraded) }
        }
        let old = MigrationCorpus.versions.filter { $0 < Pilot.format.current }
        #expect(report.upgraded == old.map { "v\($0)" })
        #expect(report.quarantined.isEmpty)
        #expect(progress.withLock { $0 } == Array(1...old.count))
        for version in MigrationCorpus.versions {
            let stored = try await #require(
                try store.read { try $0.document(in: Pilot.collection, key: "v\(version)") })
            #expect(stored.version == Pilot.format.current)
            #expect(try stored.envelope() == MigrationCorpus.value(MigrationCorpus.expectationPath(version)))
            let history = try await store.read { try $0.history(in: Pilot.collection, key: "v\(version)") }
            #expect(history.first?.version == version)
        }
    }

    // MARK: Today's writes are byte-stable

    @Test func writingTodaysVersionGivesTheFrozenCurrentBytes() async throws {
        let current = Pilot.format.current
        let envelope = try MigrationCorpus.currentEnvelope(MigrationCorpus.canonicalPilot)
        let binary = try envelope.encoded(as: .binary)
        if MigrationCorpus.recordMode == .current {
            // Only the version under development is ever written; past files have no code path that writes them.
            let xml = try envelope.encoded(as: .xml)
            try MigrationCorpus.write(binary, to: MigrationCorpus.frozenPath(current))
            try MigrationCorpus.write(xml, to: MigrationCorpus.twinPath(current))
            try MigrationCorpus.write(xml, to: MigrationCorpus.expectationPath(current))
            return
        }
        let frozen = try MigrationCorpus.bytes(MigrationCorpus.frozenPath(current))
        MigrationCorpus.expectSameBytes(
            binary, frozen,
            "the \(current) format changed: a shipped format never changes; bump the version (see Migrations/README.md)"
        )

        // The store writes the same bytes, and exports them unchanged.
        let directory = try temporaryDirectory()
        let store = try MigrationCorpus.makeStore()
        try await store.write { try $0.save(MigrationCorpus.canonicalPilot, key: "ada") }
        let stored = try await #require(try store.read { try $0.document(in: Pilot.collection, key: "ada") })
        MigrationCorpus.expectSameBytes(stored.body, frozen, "the stored body")
        try await store.export(key: "ada", in: Pilot.collection, to: directory + "/ada.plist")
        try await store.export(key: "ada", in: Pilot.collection, to: directory + "/ada.xml", format: .xml)
        MigrationCorpus.expectSameBytes(
            try MigrationCorpus.bytes(directory + "/ada.plist"), frozen, "the binary export")
        MigrationCorpus.expectSameBytes(
            try MigrationCorpus.bytes(directory + "/ada.xml"),
            try MigrationCorpus.bytes(MigrationCorpus.twinPath(current)),
            "the XML export")
    }

    // MARK: Newer documents are never misread or destroyed

    static func futureEnvelope() throws -> PropertyList {
        var content = try #require(MigrationCorpus.currentEnvelope(MigrationCorpus.canonicalPilot).dictionaryValue)
        content["majorVersion"] = 3
        content["fullName"] = content.removeValue(forKey: "name")  // 3.0 changed a meaning: a 2.x reader must not guess
        return .dictionary(content)
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
        let directory = try temporaryDirectory()
        let path = directory + "/ada.plist"
        let bytes = try Self.futureEnvelope().encoded(as: .binary)
        try MigrationCorpus.write(bytes, to: path)
        let store = try MigrationCorpus.makeStore()
        await #expect {
            try await store.importFile(path, into: Pilot.collection)
        } throws: { error in
            guard case HangarError.newerMajor = error else { return false }
            return true
        }
        #expect(try MigrationCorpus.bytes(path) == bytes)
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
        let store = try MigrationCorpus.makeStore(path: path)
        let before = try await #require(try store.read { try $0.document(in: Pilot.collection, key: "ada") })
        #expect(throws: HangarError.self) { try store.read { try $0.load(Pilot.self, key: "ada") } }
        #expect {
            try store.write { try $0.save(MigrationCorpus.canonicalPilot, key: "ada") }
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

    @Test func unknownKeysOfANewerMinorSurviveALoadSaveCycle() throws {
        var content = try #require(MigrationCorpus.currentEnvelope(MigrationCorpus.canonicalPilot).dictionaryValue)
        content["minorVersion"] = 1
        let medical: PropertyList = ["category": 2, "validUntil": .date(800_000_000)]
        content["medicalCertificate"] = medical  // what a 2.1 app added
        let store = try MigrationCorpus.makeStore()
        try store.write { try $0.save(envelope: .dictionary(content), key: "ada", in: Pilot.collection) }

        var loaded = try #require(try store.read { try $0.load(Pilot.self, key: "ada") })
        #expect(loaded.storedVersion == DocumentVersion(major: 2, minor: 1))
        #expect(!loaded.wasMigrated)
        loaded.value.homeAirfield = "ESKN"
        let value = loaded.value
        try store.write { try $0.save(value, key: "ada", expectedRevision: loaded.revision) }

        let saved = try #require(try store.read { try $0.document(in: Pilot.collection, key: "ada") }?.envelope())
        #expect(saved["medicalCertificate"] == medical)
        #expect(saved["minorVersion"] == 1)
        #expect(saved["homeAirfield"] == "ESKN")
        #expect(saved["name"] == "Ada Lindqvist")
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
