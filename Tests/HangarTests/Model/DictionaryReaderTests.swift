import Foundation
import Hangar
import PropertyList
import Testing

@Suite struct DictionaryReaderTests {
    enum Key: String {
        case name, nickname, hours, homepage, id, engine, profile
    }

    enum Engine: String, PropertyListRepresentable {
        case piston, turboprop, jet
    }

    enum Seats: Int, PropertyListRepresentable {
        case one = 1, two = 2
    }

    @Test func requiredAndOptionalReads() throws {
        let reader = try DictionaryReader(["name": "Ada", "hours": 12])
        #expect(try reader.read(Key.name) as String == "Ada")
        #expect(try reader.read("hours", as: UInt64.self) == 12)
        #expect(try reader.readIfPresent(Key.nickname, as: String.self) == nil)
        #expect(try reader.readIfPresent(Key.name, as: String.self) == "Ada")
        #expect(reader.contains(Key.name))
        #expect(!reader.contains("nickname"))
        #expect(reader[Key.hours] == 12)
    }

    @Test func missingRequiredKeyNamesTheKey() {
        expectModelError(.missingKey, #"missing key "name""#) { () throws(HangarError) in
            try DictionaryReader(["hours": 1]).read(Key.name, as: String.self)
        }
    }

    @Test func presentOptionalOfTheWrongKindIsAnErrorNotNil() {
        expectModelError(.typeMismatch, #"nickname: expected string, found integer 7"#) { () throws(HangarError) in
            try DictionaryReader(["nickname": 7]).readIfPresent(Key.nickname, as: String.self)
        }
    }

    @Test func aNonDictionaryCannotBeRead() {
        expectModelError(.typeMismatch, "expected dictionary, found array (0 elements)") { () throws(HangarError) in
            try DictionaryReader([])
        }
    }

    // MARK: Integers

    @Test(arguments: [
        // (value, type, expected description or nil when it fits)
        (PropertyList.integer(-1), "UInt64", "hours: integer -1 is out of range for UInt64"),
        (.integer(.init(UInt64(Int64.max) + 1)), "Int", "hours: integer 9223372036854775808 is out of range for Int"),
        (.integer(.init(UInt64.max)), "Int64", "hours: integer 18446744073709551615 is out of range for Int64"),
        (.integer(256), "UInt8", "hours: integer 256 is out of range for UInt8"),
        (.integer(-129), "Int8", "hours: integer -129 is out of range for Int8"),
        (.integer(65536), "UInt16", "hours: integer 65536 is out of range for UInt16"),
        (.integer(-32769), "Int16", "hours: integer -32769 is out of range for Int16"),
        (.integer(.init(Int64(UInt32.max) + 1)), "UInt32", "hours: integer 4294967296 is out of range for UInt32"),
        (.integer(.init(Int64(Int32.min) - 1)), "Int32", "hours: integer -2147483649 is out of range for Int32"),
        (.integer(-5), "UInt", "hours: integer -5 is out of range for UInt"),
    ])
    func integersOutOfRangeAreErrors(value: PropertyList, type: String, description: String) {
        let reader: DictionaryReader
        do { reader = try DictionaryReader(["hours": value]) } catch {
            Issue.record("\(error)")
            return
        }
        expectModelError(.outOfRange, description) { () throws(HangarError) -> String in
            switch type {
            case "UInt64": "\(try reader.read("hours", as: UInt64.self))"
            case "Int": "\(try reader.read("hours", as: Int.self))"
            case "Int64": "\(try reader.read("hours", as: Int64.self))"
            case "UInt8": "\(try reader.read("hours", as: UInt8.self))"
            case "Int8": "\(try reader.read("hours", as: Int8.self))"
            case "UInt16": "\(try reader.read("hours", as: UInt16.self))"
            case "Int16": "\(try reader.read("hours", as: Int16.self))"
            case "UInt32": "\(try reader.read("hours", as: UInt32.self))"
            case "Int32": "\(try reader.read("hours", as: Int32.self))"
            default: "\(try reader.read("hours", as: UInt.self))"
            }
        }
    }

    @Test func integersAtTheEdgesOfTheirRangeFit() throws {
        let reader = try DictionaryReader([
            "u64": .integer(.init(UInt64.max)), "i64": .integer(.init(Int64.min)), "u8": 255, "i8": -128,
        ])
        #expect(try reader.read("u64", as: UInt64.self) == UInt64.max)
        #expect(try reader.read("i64", as: Int64.self) == Int64.min)
        #expect(try reader.read("u8", as: UInt8.self) == 255)
        #expect(try reader.read("i8", as: Int8.self) == -128)
    }

    @Test func integerFromAStringIsATypeMismatch() {
        expectModelError(.typeMismatch, #"engineHours: expected integer, found string "12""#) {
            () throws(HangarError) in
            try DictionaryReader(["engineHours": "12"]).read("engineHours", as: UInt64.self)
        }
    }

    // MARK: Other scalars

    @Test func realsAcceptExactIntegers() throws {
        let reader = try DictionaryReader(["r": 1.5, "i": 3, "big": .integer(.init(UInt64.max))])
        #expect(try reader.read("r", as: Double.self) == 1.5)
        #expect(try reader.read("i", as: Double.self) == 3)
        #expect(try reader.read("r", as: Float.self) == 1.5)
        expectModelError(.outOfRange, "big: integer 18446744073709551615 is out of range for Double") {
            () throws(HangarError) in try reader.read("big", as: Double.self)
        }
    }

    @Test func floatOutOfRangeIsAnError() {
        expectModelError(.outOfRange, "r: real 1e+300 is out of range for Float") { () throws(HangarError) in
            try DictionaryReader(["r": 1e300]).read("r", as: Float.self)
        }
    }

    @Test func datesDataAndBytes() throws {
        let reader = try DictionaryReader(["when": .date(86_400), "blob": .data([0, 255])])
        #expect(try reader.read("when", as: Date.self) == Date(timeIntervalSinceReferenceDate: 86_400))
        #expect(try reader.read("blob", as: Data.self) == Data([0, 255]))
        #expect(try reader.readBytes("blob") == [0, 255])
        #expect(try reader.readBytesIfPresent("none") == nil)
        expectModelError(.typeMismatch, "when: expected data, found date 2001-01-02T00:00:00Z") {
            () throws(HangarError) in try reader.readBytes("when")
        }
        expectModelError(.typeMismatch, "blob: expected date, found data (2 bytes)") {
            () throws(HangarError) in try reader.read("blob", as: Date.self)
        }
    }

    @Test func urlsAndUUIDs() throws {
        let id = UUID()
        let reader = try DictionaryReader([
            "homepage": "https://example.org/a", "id": .string(id.uuidString), "badID": "nope", "badURL": "",
        ])
        #expect(try reader.read(Key.homepage, as: URL.self) == URL(string: "https://example.org/a"))
        #expect(try reader.read(Key.id, as: UUID.self) == id)
        expectModelError(.invalidValue, #"badID: string "nope" is not a valid UUID"#) { () throws(HangarError) in
            try reader.read("badID", as: UUID.self)
        }
        expectModelError(.invalidValue, #"badURL: string "" is not a valid URL"#) { () throws(HangarError) in
            try reader.read("badURL", as: URL.self)
        }
    }

    @Test func rawRepresentableEnums() throws {
        let reader = try DictionaryReader(["engine": "jet", "seats": 2, "bad": "rocket"])
        #expect(try reader.read(Key.engine, as: Engine.self) == .jet)
        #expect(try reader.read("seats", as: Seats.self) == .two)
        expectModelError(.invalidValue, #"bad: string "rocket" is not a valid Engine"#) { () throws(HangarError) in
            try reader.read("bad", as: Engine.self)
        }
        #expect(Engine.turboprop.propertyListRepresentation == "turboprop")
    }

    @Test func nestedReadersExtendThePath() throws {
        let reader = try DictionaryReader(["profile": ["medical": ["class": "two"]]])
        let medical = try reader.nested(Key.profile).nested("medical")
        #expect(medical.path.description == "profile.medical")
        expectModelError(.typeMismatch, #"profile.medical.class: expected integer, found string "two""#) {
            () throws(HangarError) in try medical.read("class", as: Int.self)
        }
        expectModelError(.missingKey, #"profile: missing key "license""#) { () throws(HangarError) in
            try reader.nested(Key.profile).nested("license")
        }
        #expect(try reader.nestedIfPresent("other") == nil)
    }

    @Test func arraysAndDictionariesOfValuesCarryIndexesAndKeys() throws {
        let reader = try DictionaryReader(["hours": [1, 2, "3"], "byName": ["a": 1, "b": true]])
        expectModelError(.typeMismatch, #"hours[2]: expected integer, found string "3""#) { () throws(HangarError) in
            try reader.read("hours", as: [Int].self)
        }
        expectModelError(.typeMismatch, "byName.b: expected integer, found boolean true") { () throws(HangarError) in
            try reader.read("byName", as: [String: Int].self)
        }
    }
}
