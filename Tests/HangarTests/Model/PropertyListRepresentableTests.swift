import Foundation
import Hangar
import PropertyList
import Testing

@Suite struct PropertyListRepresentableTests {
    /// A struct mapped by hand, the way the README shows.
    struct Logbook: PropertyListRepresentable, Equatable {
        enum Key: String { case owner, entries, remarks, totals }
        var owner: String
        var entries: [Entry]
        var remarks: String?
        var totals: [String: UInt64]

        init(owner: String, entries: [Entry], remarks: String?, totals: [String: UInt64]) {
            self.owner = owner
            self.entries = entries
            self.remarks = remarks
            self.totals = totals
        }

        init(propertyList: PropertyList) throws(HangarError) {
            let reader = try DictionaryReader(propertyList)
            owner = try reader.read(Key.owner)
            entries = try reader.read(Key.entries)
            remarks = try reader.readIfPresent(Key.remarks)
            totals = try reader.read(Key.totals)
        }

        var propertyListRepresentation: PropertyList {
            var writer = DictionaryWriter()
            writer.set(Key.owner, owner)
            writer.set(Key.entries, entries)
            writer.set(Key.remarks, remarks)
            writer.set(Key.totals, totals)
            return writer.propertyList
        }
    }

    struct Entry: PropertyListRepresentable, Equatable {
        enum Key: String { case date, minutes }
        var date: Date
        var minutes: Int16

        init(date: Date, minutes: Int16) {
            self.date = date
            self.minutes = minutes
        }

        init(propertyList: PropertyList) throws(HangarError) {
            let reader = try DictionaryReader(propertyList)
            date = try reader.read(Key.date)
            minutes = try reader.read(Key.minutes)
        }

        var propertyListRepresentation: PropertyList {
            var writer = DictionaryWriter()
            writer.set(Key.date, date)
            writer.set(Key.minutes, minutes)
            return writer.propertyList
        }
    }

    static let logbook = Logbook(
        owner: "Ada",
        entries: [
            Entry(date: Date(timeIntervalSinceReferenceDate: 0), minutes: 45),
            Entry(date: Date(timeIntervalSinceReferenceDate: 3600), minutes: 90),
        ],
        remarks: nil,
        totals: ["SE": 12, "ME": UInt64.max]
    )

    @Test func nestedModelsRoundTrip() throws {
        let value = Self.logbook.propertyListRepresentation
        #expect(value["remarks"] == nil)
        #expect(value["entries"]?[1]?["minutes"] == 90)
        #expect(try Logbook(propertyList: value) == Self.logbook)
    }

    @Test func errorsInNestedModelsCarryTheFullPath() {
        let value: PropertyList = [
            "owner": "Ada", "totals": [:],
            "entries": [["date": .date(0), "minutes": 1], ["date": .date(0), "minutes": "12"]],
        ]
        expectModelError(.typeMismatch, #"entries[1].minutes: expected integer, found string "12""#) {
            () throws(HangarError) in try Logbook(propertyList: value)
        }
        let wrapped: PropertyList = ["objects": [[:], [:], [:], ["logbook": value]]]
        expectModelError(.typeMismatch, #"objects[3].logbook.entries[1].minutes: expected integer, found string "12""#)
        {
            () throws(HangarError) in
            try DictionaryReader(wrapped).read("objects", as: [[String: Logbook]].self)
        }
    }

    @Test func missingKeyInAnArrayElementNamesTheElement() {
        let value: PropertyList = ["owner": "Ada", "totals": [:], "entries": [["minutes": 1]]]
        expectModelError(.missingKey, #"entries[0]: missing key "date""#) { () throws(HangarError) in
            try Logbook(propertyList: value)
        }
    }

    @Test(arguments: [
        PropertyList.string("x"), 1, 1.5, true, .date(1), .data([]), [1, "two"], ["k": ["nested": [1]]],
    ])
    func propertyListIsItsOwnRepresentation(value: PropertyList) throws {
        #expect(value.propertyListRepresentation == value)
        #expect(try PropertyList(propertyList: value) == value)
    }

    @Test func scalarsRoundTrip() throws {
        #expect(try UInt64(propertyList: UInt64.max.propertyListRepresentation) == UInt64.max)
        #expect(try Int64(propertyList: Int64.min.propertyListRepresentation) == Int64.min)
        #expect(try UInt8(propertyList: UInt8(200).propertyListRepresentation) == 200)
        #expect(try Double(propertyList: Double.nan.propertyListRepresentation).isNaN)
        #expect(try Float(propertyList: Float.infinity.propertyListRepresentation) == .infinity)
        #expect(try Bool(propertyList: true.propertyListRepresentation))
        let uuid = UUID()
        #expect(try UUID(propertyList: uuid.propertyListRepresentation) == uuid)
        let url = URL(string: "file:///tmp/a%20b")
        #expect(try url.map { try URL(propertyList: $0.propertyListRepresentation) } == url)
    }
}
