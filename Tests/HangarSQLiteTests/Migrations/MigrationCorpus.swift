import Foundation
import Hangar
import HangarSQLite
import HangarTestSupport
import PilotModels
import PropertyList
import Testing

/// The frozen Pilots documents in `Migrations/Pilots/` and what each must load as.
///
/// Layout, per shipped version `M.m`:
/// - `pilot-vM.m.plist`: the document as that version wrote it, binary. Frozen: no code writes a past one.
/// - `pilot-vM.m.xml`: its XML twin, for review; it must decode to the same value.
/// - `expected/pilot-vM.m.xml`: the envelope today's code writes after loading it (the current version).
///
/// `HANGAR_RECORD_MIGRATIONS=current` rewrites the current version's file, twin and expectation from
/// ``canonicalPilot``; `HANGAR_RECORD_MIGRATIONS=expectations` rewrites every `expected/` file from what today's
/// code loads (after a new major, for review in the diff). Nothing is ever rewritten without one of them.
enum MigrationCorpus {
    /// Every version that shipped, oldest first. A new version is added here when its file is frozen.
    static let versions: [DocumentVersion] = [
        DocumentVersion(major: 1, minor: 0),
        DocumentVersion(major: 1, minor: 1),
        DocumentVersion(major: 2, minor: 0),
    ]

    /// `Migrations/Pilots` at the repository root.
    static let directory = repositoryRoot + "/Migrations/Pilots"

    static func frozenPath(_ version: DocumentVersion) -> String { directory + "/pilot-v\(version).plist" }
    static func twinPath(_ version: DocumentVersion) -> String { directory + "/pilot-v\(version).xml" }
    static func expectationPath(_ version: DocumentVersion) -> String { directory + "/expected/pilot-v\(version).xml" }

    /// The pilot the current version's frozen file holds: the same pilot as the older files, a few flights later.
    static let canonicalPilot = Pilot(
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

    /// The envelope today's code writes for `pilot`.
    static func currentEnvelope(_ pilot: Pilot) throws -> PropertyList {
        let content = try #require(ClassRegistry.pilots.encode(pilot).dictionaryValue)
        return Pilot.format.seal(content)
    }

    static func bytes(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        let data = try #require(
            FileManager.default.contents(atPath: path), "missing \(path)", sourceLocation: sourceLocation)
        return [UInt8](data)
    }

    static func value(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> PropertyList {
        try PropertyList.decode(bytes(path, sourceLocation: sourceLocation)).value
    }

    /// Compares bytes without dumping them: a failure says where they first differ.
    static func expectSameBytes(
        _ actual: [UInt8], _ expected: [UInt8], _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard actual != expected else { return }
        let offset =
            zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(actual.count, expected.count)
        Issue.record(
            "\(what): \(actual.count) bytes, expected \(expected.count); first difference at byte offset \(offset)",
            sourceLocation: sourceLocation)
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// What `HANGAR_RECORD_MIGRATIONS` asks for, if anything.
    enum RecordMode: String {
        case current, expectations
    }

    static var recordMode: RecordMode? {
        ProcessInfo.processInfo.environment["HANGAR_RECORD_MIGRATIONS"].flatMap(RecordMode.init(rawValue:))
    }

    /// A store configured as an app using the Pilots format would configure it.
    static func makeStore(path: String? = nil) throws -> SQLiteStore {
        var configuration = StoreConfiguration()
        configuration.registry = ClassRegistry.pilots
        configuration.collections[Pilot.collection] = CollectionOptions(format: Pilot.format)
        if let path { return try SQLiteStore(path: path, store: configuration) }
        return try SQLiteStore.inMemory(store: configuration)
    }
}
