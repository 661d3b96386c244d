import Foundation
import Hangar
import HangarSQLite
import HangarTestSupport
import PropertyList
import Synchronization
import Testing

/// A flight logbook whose format changed in minors only (`Migrations/Logbooks/`, and the table in
/// `Migrations/README.md`): 1.1 added `totalMinutes`, 1.2 added `aircraftClass`, each with a minor upgrade that
/// fills it in for older documents.
struct Logbook: VersionedDocument, Equatable {
    struct Entry: Equatable {
        var date: Date
        var minutes: Int
    }

    static let collection = "logbooks"
    static let format = DocumentFormat(
        current: DocumentVersion(major: 1, minor: 2),
        minorUpgrades: [
            DocumentMinorUpgrade(major: 1, to: 1, "total minutes from the entries") { content in
                var content = content
                let minutes =
                    content["entries"]?.arrayValue?.compactMap { $0["minutes"]?.integerValue?.exactly(Int.self) } ?? []
                content["totalMinutes"] = .integer(PropertyList.Integer(minutes.reduce(0, +)))
                return content
            },
            DocumentMinorUpgrade(major: 1, to: 2, "aircraft class defaults to SEP") { content in
                var content = content
                content["aircraftClass"] = content["aircraftClass"] ?? "SEP"
                return content
            },
        ])

    var pilot: String
    var entries: [Entry]
    var totalMinutes: Int
    var aircraftClass: String

    init(pilot: String, entries: [Entry], totalMinutes: Int, aircraftClass: String) {
        self.pilot = pilot
        self.entries = entries
        self.totalMinutes = totalMinutes
        self.aircraftClass = aircraftClass
    }

    init(propertyList: PropertyList) throws(HangarError) {
        let reader = try DictionaryReader(propertyList)
        pilot = try reader.read("pilot")
        let rows: [PropertyList] = try reader.read("entries")
        entries = try rows.map { (row) throws(HangarError) in
            let entry = try DictionaryReader(row)
            return Entry(date: try entry.read("date"), minutes: try entry.read("minutes"))
        }
        // Required: the minor upgrades fill them in for older documents.
        totalMinutes = try reader.read("totalMinutes")
        aircraftClass = try reader.read("aircraftClass")
    }

    var propertyListRepresentation: PropertyList {
        var writer = DictionaryWriter()
        writer.set("pilot", pilot)
        writer.set(
            "entries",
            entries.map { entry -> PropertyList in
                var row = DictionaryWriter()
                row.set("date", entry.date)
                row.set("minutes", entry.minutes)
                return row.propertyList
            })
        writer.set("totalMinutes", totalMinutes)
        writer.set("aircraftClass", aircraftClass)
        return writer.propertyList
    }
}

/// Every frozen logbook loads through the store as today's model, its minor upgrades run and reported.
@Suite struct MinorUpgradeCorpusTests {
    static let directory = repositoryRoot + "/Migrations/Logbooks"
    static let versions = ["1.0", "1.1", "1.2"]

    /// The logbook every frozen file holds, as today's code reads it.
    static let expected = Logbook(
        pilot: "Ada Lindqvist",
        entries: [
            Logbook.Entry(date: Date(timeIntervalSince1970: 1_772_357_400), minutes: 55),  // 2026-03-01T09:30:00Z
            Logbook.Entry(date: Date(timeIntervalSince1970: 1_772_978_400), minutes: 95),  // 2026-03-08T14:00:00Z
        ],
        totalMinutes: 150, aircraftClass: "SEP")

    @Test(arguments: versions)
    func frozenFileLoadsThroughTheStore(version: String) async throws {
        let steps = Mutex<[String]>([])
        var configuration = StoreConfiguration()
        configuration.migrationObserver = { event in steps.withLock { $0.append("\(event.to) \(event.step)") } }
        let store = try SQLiteStore.inMemory(store: configuration)
        let path = Self.directory + "/logbook-v\(version).plist"
        #expect(try await store.importFile(path, into: Logbook.collection, key: "ada") == 1)
        let loaded = try #require(try await store.load(Logbook.self, key: "ada"))
        #expect(loaded.value == Self.expected)
        #expect(loaded.storedVersion == DocumentVersion(major: 1, minor: Int(version.suffix(1)) ?? -1))
        let ran = steps.withLock { $0 }
        let all = ["1.1 total minutes from the entries", "1.2 aircraft class defaults to SEP"]
        #expect(ran == Array(all.suffix(2 - (Int(version.suffix(1)) ?? 0))), "\(version): \(ran)")
        // The file is stored as it was: loading upgrades in memory, never the stored bytes.
        let stored = try #require(try await store.document(in: Logbook.collection, key: "ada"))
        #expect(stored.body == [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    /// Today's code writes what the current version's frozen file holds.
    @Test func theCurrentVersionWritesTheFrozenValue() throws {
        let frozen = try PropertyList(
            binary: [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.directory + "/logbook-v1.2.plist"))))
        let content = try #require(Self.expected.propertyListRepresentation.dictionaryValue)
        #expect(Logbook.format.seal(content) == frozen)
    }
}
