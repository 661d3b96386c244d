import Foundation
import Hangar
import PropertyList
import Testing

@Suite struct PropertyListValueDecoderTests {
    typealias Flight = CodableFixtures.Flight
    typealias Crew = CodableFixtures.Crew

    @Test func decodesEveryKind() throws {
        #expect(
            try PropertyListValueDecoder().decode(Flight.self, from: CodableFixtures.flightValue)
                == CodableFixtures.flight)
    }

    @Test func roundTripsThroughTheEncoder() throws {
        let value = try PropertyListValueEncoder().encode(CodableFixtures.flight)
        #expect(try PropertyListValueDecoder().decode(Flight.self, from: value) == CodableFixtures.flight)
        let trucks = [CodableFixtures.Truck(wheels: 6, payload: 7.5)]
        let decoded = try PropertyListValueDecoder().decode(
            [CodableFixtures.Truck].self, from: PropertyListValueEncoder().encode(trucks))
        #expect(decoded.map(\.wheels) == [6])
        #expect(decoded.map(\.payload) == [7.5])
    }

    static let badRosters: [(PropertyList, HangarError.Code, String)] = [
        (
            PropertyList(dictionaryLiteral: ("crew", [["name": "Ada", "hours": 1], ["name": "Bo", "hours": "12"]])),
            HangarError.Code.typeMismatch, #"crew[1].hours: expected integer, found string "12""#
        ),
        (["crew": [["hours": 1]]], .missingKey, #"crew[0]: missing key "name""#),
        (
            ["crew": [["name": "Ada", "hours": -1]]], .outOfRange,
            "crew[0].hours: integer -1 is out of range for UInt64"
        ),
        (
            ["crew": [["name": "Ada", "hours": 1, "nickname": false]]], .typeMismatch,
            "crew[0].nickname: expected string, found boolean false"
        ),
        (["crew": "Ada"], .typeMismatch, #"crew: expected array, found string "Ada""#),
        (["crew": ["x"]], .typeMismatch, #"crew[0]: expected dictionary, found string "x""#),
    ]

    @Test(arguments: badRosters)
    func errorsCarryTheCodingPath(value: PropertyList, kind: HangarError.Code, description: String) {
        struct Roster: Decodable { var crew: [CodableFixtures.Crew] }
        expectModelError(kind, description) { () throws(HangarError) in
            try PropertyListValueDecoder().decode(Roster.self, from: value)
        }
    }

    @Test func intAboveIntMaxIsOutOfRange() {
        expectModelError(.outOfRange, "integer 9223372036854775808 is out of range for Int") { () throws(HangarError) in
            try PropertyListValueDecoder().decode(Int.self, from: .integer(.init(UInt64(Int64.max) + 1)))
        }
    }

    @Test func specialTypesAreChecked() {
        expectModelError(.typeMismatch, "departure: expected date, found real 1.5") { () throws(HangarError) in
            try PropertyListValueDecoder().decode([String: Date].self, from: ["departure": 1.5])
        }
        expectModelError(.invalidValue, #"[0]: string "not-a-uuid" is not a valid UUID"#) { () throws(HangarError) in
            try PropertyListValueDecoder().decode([UUID].self, from: ["not-a-uuid"])
        }
        expectModelError(.typeMismatch, #"expected data, found string "AAAA""#) { () throws(HangarError) in
            try PropertyListValueDecoder().decode(Data.self, from: "AAAA")
        }
    }

    struct Even: Decodable {
        var value: Int
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            value = try container.decode(Int.self)
            guard value.isMultiple(of: 2) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(value) is odd")
            }
        }
    }

    @Test func aTypesOwnDecodingErrorKeepsItsPath() {
        expectModelError(.invalidValue, "numbers[1]: 3 is odd") { () throws(HangarError) in
            try PropertyListValueDecoder().decode([String: [Even]].self, from: ["numbers": [2, 3]])
        }
    }

    struct Pair: Decodable {
        var first: Int
        var second: Int
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            first = try container.decode(Int.self)
            second = try container.decode(Int.self)
        }
    }

    @Test func readingPastTheEndOfAnArrayIsAnError() {
        expectModelError(.missingKey, "pair: expected more than 1 elements") { () throws(HangarError) in
            try PropertyListValueDecoder().decode([String: Pair].self, from: ["pair": [1]])
        }
    }

    /// Codable would write `{"degrees": …}`; its own mapping, a plain real, wins inside the bridge.
    struct Celsius: Codable, PropertyListRepresentable, Equatable {
        var degrees: Double
        init(degrees: Double) { self.degrees = degrees }
        init(propertyList: PropertyList) throws(HangarError) { degrees = try Double(propertyList: propertyList) }
        var propertyListRepresentation: PropertyList { .real(degrees) }
    }

    @Test func aPropertyListRepresentableTypeUsesItsOwnMapping() throws {
        let value = try PropertyListValueEncoder().encode(["oat": Celsius(degrees: -3.5)])
        #expect(value == ["oat": -3.5])
        #expect(
            try PropertyListValueDecoder().decode([String: Celsius].self, from: value) == [
                "oat": Celsius(degrees: -3.5)
            ])
        expectModelError(.typeMismatch, #"oat: expected real, found string "cold""#) { () throws(HangarError) in
            try PropertyListValueDecoder().decode([String: Celsius].self, from: ["oat": "cold"])
        }
    }

    @Test func optionalsReadAbsentKeysAsNil() throws {
        let crew = try PropertyListValueDecoder().decode(Crew.self, from: ["name": "Ada", "hours": 1])
        #expect(crew.nickname == nil)
        #expect(crew.hours == 1)
    }
}
