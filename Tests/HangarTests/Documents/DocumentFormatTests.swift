import PropertyList
import Synchronization
import Testing

@testable import Hangar

@Suite struct DocumentFormatTests {
    /// v1 stored `registration`; v2 renamed it `registrationNumber`; v3 made hours an integer.
    static func pilotsFormat(minor: Int = 0) -> DocumentFormat {
        DocumentFormat(
            current: DocumentVersion(major: 3, minor: minor),
            oldestReadableMajor: 1,
            migrations: [
                DocumentMigration(from: 1, "rename registration") { content in
                    var content = content
                    content["registrationNumber"] = content.removeValue(forKey: "registration")
                    return content
                },
                DocumentMigration(from: 2, "hours as integer") { content in
                    var content = content
                    if case .string(let text) = content["hours"], let hours = Int64(text) {
                        content["hours"] = .integer(.init(hours))
                    }
                    return content
                },
            ])
    }

    @Test func migrationsRunInOrderAndAreReported() throws {
        let events = Mutex<[String]>([])
        let old: PropertyList = ["majorVersion": 1, "minorVersion": 2, "registration": "N1", "hours": "12"]
        let opened = try Self.pilotsFormat().open(old, name: "pilots/amelia") { event in
            events.withLock { $0.append(event.description) }
        }
        #expect(opened.storedVersion == DocumentVersion(major: 1, minor: 2))
        #expect(opened.content == ["registrationNumber": "N1", "hours": 12])
        #expect(
            events.withLock { $0 } == [
                "migrated pilots/amelia from 1.2 to 2.0: rename registration",
                "migrated pilots/amelia from 2.0 to 3.0: hours as integer",
            ])
    }

    @Test func currentDocumentsOpenUnchanged() throws {
        let document: PropertyList = ["majorVersion": 3, "minorVersion": 0, "hours": 5]
        #expect(try Self.pilotsFormat().open(document).content == ["hours": 5])
    }

    @Test func newerMajorIsRefusedNamingBothVersions() {
        let document: PropertyList = ["majorVersion": 4, "minorVersion": 0]
        #expect {
            try Self.pilotsFormat().open(document, name: "pilots/x")
        } throws: { error in
            guard let error = error as? HangarError else { return false }
            return error.code == .newerMajor && error.storedVersion == DocumentVersion(major: 4, minor: 0)
                && error.description
                    == "pilots/x: major version 4 is newer than this code reads (3); the document is left as it is"
        }
    }

    @Test func newerMinorReadsNormally() throws {
        let document: PropertyList = ["majorVersion": 3, "minorVersion": 7, "hours": 5, "futureKey": true]
        let opened = try Self.pilotsFormat().open(document)
        #expect(opened.storedVersion.minor == 7)
        #expect(opened.content == ["hours": 5, "futureKey": true])
    }

    @Test(arguments: [
        (
            PropertyList.array([]), HangarError.Code.notAnEnvelope,
            "The document's top level is array, not a dictionary"
        ),
        (PropertyList.dictionary(["minorVersion": 0]), .missingVersion, "The document has no majorVersion"),
        (
            PropertyList.dictionary(["majorVersion": "2"]), .invalidVersion,
            "majorVersion is string \"2\", not a non-negative integer"
        ),
        (
            PropertyList.dictionary(["majorVersion": -1]), .invalidVersion,
            "majorVersion is integer -1, not a non-negative integer"
        ),
        (
            PropertyList.dictionary(["majorVersion": 3, "minorVersion": 1.5]), .invalidVersion,
            "minorVersion is real 1.5, not a non-negative integer"
        ),
    ])
    func badEnvelopes(document: PropertyList, kind: HangarError.Code, message: String) {
        #expect {
            try Self.pilotsFormat().open(document)
        } throws: { error in
            (error as? HangarError)?.code == kind && (error as? HangarError)?.description == message
        }
    }

    @Test func minorIsRequiredWhenTheFormatSaysSo() throws {
        let format = DocumentFormat(current: .init(major: 1, minor: 0), defaultMinor: nil)
        #expect(throws: HangarError.self) { try format.open(["majorVersion": 1]) }
        let lenient = DocumentFormat(current: .init(major: 1, minor: 0))
        #expect(try lenient.open(["majorVersion": 1]).storedVersion == DocumentVersion(major: 1, minor: 0))
    }

    @Test func tooOldMajorIsRefused() throws {
        let format = DocumentFormat(
            current: .init(major: 3, minor: 0), oldestReadableMajor: 2,
            migrations: [DocumentMigration(from: 2, "noop") { $0 }])
        #expect {
            try format.open(["majorVersion": 1])
        } throws: { error in
            (error as? HangarError)?.code == .unsupportedOldMajor
        }
    }

    /// What a migration test sees of a declaration that would stop the program: a thrown error saying which step.
    @Test func aDeclarationIsCheckedWithoutStoppingTheProgram() throws {
        func problem(_ make: () throws -> DocumentFormat) -> String? {
            do {
                _ = try make()
                return nil
            } catch let error as HangarError {
                return error.code == .invalidFormat ? error.description : "\(error.code)"
            } catch {
                return "\(error)"
            }
        }
        #expect(
            problem {
                try DocumentFormat.validated(
                    current: .init(major: 3, minor: 0), oldestReadableMajor: 1,
                    migrations: [DocumentMigration(from: 1, "one") { $0 }])
            } == "No migration from major 2 to 3")
        #expect(
            problem {
                try DocumentFormat.validated(
                    current: .init(major: 2, minor: 0), oldestReadableMajor: 1,
                    migrations: [DocumentMigration(from: 1, "a") { $0 }, DocumentMigration(from: 1, "b") { $0 }])
            } == "Two migrations start at major 1")
        #expect(
            problem {
                try DocumentFormat.validated(
                    current: .init(major: 1, minor: 2),
                    minorUpgrades: [
                        DocumentMinorUpgrade(major: 1, to: 1, "a") { $0 },
                        DocumentMinorUpgrade(major: 1, to: 1, "b") { $0 },
                    ])
            } == "Two minor upgrades lead to 1.1")
        #expect(
            problem {
                try DocumentFormat.validated(
                    current: .init(major: 1, minor: 2),
                    minorUpgrades: [DocumentMinorUpgrade(major: 1, to: 3, "c") { $0 }])
            } == "Minor upgrade \"c\" leads to 1.3, outside the versions 1.0...1.2 this format reads")
        // Minor 0 is inside the versions read, but nothing can be upgraded to it: the message says so.
        #expect(
            problem {
                try DocumentFormat.validated(
                    current: .init(major: 2, minor: 2), oldestReadableMajor: 1,
                    migrations: [DocumentMigration(from: 1, "one") { $0 }],
                    minorUpgrades: [DocumentMinorUpgrade(major: 2, to: 0, "zero") { $0 }])
            } == "Minor upgrade \"zero\" leads to 2.0; an upgrade's minor must be at least 1")
        #expect(
            problem { try DocumentFormat.validated(current: .init(major: 2, minor: 0), defaultMinor: -1) }
                == "The default minor -1 is negative; minors start at 0")
        #expect(try DocumentFormat.validated(current: .init(major: 2, minor: 0), defaultMinor: nil).defaultMinor == nil)
        #expect(try DocumentFormat.validated(current: .init(major: 2, minor: 3), defaultMinor: 3).defaultMinor == 3)
        let format = try DocumentFormat.validated(
            current: .init(major: 2, minor: 1), oldestReadableMajor: 1,
            migrations: [DocumentMigration(from: 1, "one") { $0 }],
            minorUpgrades: [DocumentMinorUpgrade(major: 2, to: 1, "d") { $0 }])
        #expect(format.current == DocumentVersion(major: 2, minor: 1))
    }

    @Test func anInvalidFormatStopsTheProgramAtStartUp() async {
        await #expect(processExitsWith: .failure) {
            _ = DocumentFormat(current: .init(major: 2, minor: 0), oldestReadableMajor: 1)
        }
    }

    @Test func failingStepNamesItself() throws {
        struct Broken: Error {}
        let format = DocumentFormat(
            current: .init(major: 2, minor: 0), oldestReadableMajor: 1,
            migrations: [DocumentMigration(from: 1, "split name") { _ in throw Broken() }])
        #expect {
            try format.open(["majorVersion": 1], name: "pilots/a")
        } throws: { error in
            guard let error = error as? HangarError else { return false }
            return error.code == .migrationFailed
                && error.description.hasPrefix("pilots/a: migration \"split name\" from major 1 failed: ")
                && error.underlying is Broken
        }
    }

    @Test func minorUpgradesFillDefaults() throws {
        let format = DocumentFormat(
            current: .init(major: 1, minor: 2),
            minorUpgrades: [
                DocumentMinorUpgrade(major: 1, to: 1, "default nickname") { content in
                    var content = content
                    content["nickname"] = content["nickname"] ?? ""
                    return content
                },
                DocumentMinorUpgrade(major: 1, to: 2, "default rating") { content in
                    var content = content
                    content["rating"] = content["rating"] ?? 0
                    return content
                },
            ])
        #expect(try format.open(["majorVersion": 1, "minorVersion": 0]).content == ["nickname": "", "rating": 0])
        #expect(
            try format.open(["majorVersion": 1, "minorVersion": 1, "nickname": "A"]).content == [
                "nickname": "A", "rating": 0,
            ])
        #expect(try format.open(["majorVersion": 1, "minorVersion": 2]).content == [:])
    }

    /// A 1.0 document read by a 2.1 format: major 1's minor upgrades, the migration, then major 2's, each reported.
    @Test func minorUpgradesRunForEachMajorOnTheWay() throws {
        let events = Mutex<[String]>([])
        let format = DocumentFormat(
            current: .init(major: 2, minor: 1), oldestReadableMajor: 1,
            migrations: [
                DocumentMigration(from: 1, "rename seats") { content in
                    var content = content
                    content["seatCount"] = content.removeValue(forKey: "seats")
                    return content
                }
            ],
            minorUpgrades: [
                DocumentMinorUpgrade(major: 1, to: 1, "default seats") { content in
                    var content = content
                    content["seats"] = content["seats"] ?? 2
                    return content
                },
                DocumentMinorUpgrade(major: 2, to: 1, "default engine") { content in
                    var content = content
                    content["engine"] = content["engine"] ?? "none"
                    return content
                },
            ])
        let opened = try format.open(["majorVersion": 1, "minorVersion": 0]) { event in
            events.withLock { $0.append("\(event.from)→\(event.to) \(event.step)") }
        }
        #expect(opened.content == ["seatCount": 2, "engine": "none"])
        #expect(
            events.withLock { $0 } == [
                "1.0→1.1 default seats", "1.1→2.0 rename seats", "2.0→2.1 default engine",
            ])
        // A 2.1 document is left as it is.
        #expect(try format.open(["majorVersion": 2, "minorVersion": 1, "seatCount": 4]).content == ["seatCount": 4])
    }

    @Test func sealAddsTheVersionKeys() {
        let format = Self.pilotsFormat(minor: 1)
        #expect(format.seal(["hours": 5]) == ["hours": 5, "majorVersion": 3, "minorVersion": 1])
    }
}

@Suite struct DocumentErrorCodeTests {
    @Test func codesMatchInCatchClausesAndDescribeThemselves() {
        let format = DocumentFormat(current: DocumentVersion(major: 1, minor: 0), oldestReadableMajor: 1)
        do {
            _ = try format.open(["majorVersion": 9, "minorVersion": 0])
            Issue.record("a newer major must be refused")
        } catch HangarError.Code.newerMajor {
            // Matched by code, not by message.
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(HangarError.Code.newerMajor.description == "newerMajor")
        #expect(HangarError.Code.newerMajor != .migrationFailed)
    }
}
