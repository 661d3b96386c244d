import Foundation
import Hangar
import HangarSQLite
import HangarTestSupport
import HangarTesting
import PropertyList
import Testing

/// A flight logbook whose format changed in minors only (`Migrations/Logbooks/`, and the table in
/// `Migrations/README.md`): 1.1 added `totalMinutes`, 1.2 added `aircraftClass`, each with a minor upgrade that
/// fills it in for older documents.
struct Logbook: VersionedDocument, Equatable, Sendable {
    struct Entry: Equatable, Sendable {
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
                // Checked: the kit's generated 1.0 logbooks (minutes near Int.max) once made this sum trap.
                var total = 0
                for value in minutes {
                    let (sum, overflow) = total.addingReportingOverflow(value)
                    guard !overflow else { throw LogbookUpgradeError() }
                    total = sum
                }
                content["totalMinutes"] = .integer(PropertyList.Integer(total))
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

/// A 1.0 logbook whose minutes add up past `Int.max`: no total can be written for it.
struct LogbookUpgradeError: Error, CustomStringConvertible {
    var description: String { "entries: the minutes add up past Int.max" }
}

/// The logbook history (`Migrations/Logbooks/`): minors only, each with a minor upgrade. Its files were frozen
/// by Python's `plistlib`, not by Hangar, so the writer check compares the current version's values, not bytes
/// (the manifest names the writer).
@Suite struct LogbookFormatHistoryTests {
    /// The logbook every frozen file holds, as today's code reads it.
    static let ada = Logbook(
        pilot: "Ada Lindqvist",
        entries: [
            Logbook.Entry(date: Date(timeIntervalSince1970: 1_772_357_400), minutes: 55),  // 2026-03-01T09:30:00Z
            Logbook.Entry(date: Date(timeIntervalSince1970: 1_772_978_400), minutes: 95),  // 2026-03-08T14:00:00Z
        ],
        totalMinutes: 150, aircraftClass: "SEP")

    @Test func logbookFormatsHold() throws {
        try FormatHistory(Logbook.self, folder: repositoryRoot + "/Migrations/Logbooks", samples: [Self.ada]).verify()
    }
}
