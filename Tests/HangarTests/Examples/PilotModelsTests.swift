import Foundation
import Hangar
import PilotModels
import PropertyList
import Testing

/// The seed's models, written against the public API, keep every field through a round trip.
@Suite struct PilotModelsTests {
    static func makePilot() -> Pilot {
        Pilot(
            name: "Hanna Reitsch",
            licenseNumber: "D-1234",
            dateOfBirth: Date(timeIntervalSinceReferenceDate: -2_800_000_000),
            homeAirfield: nil,
            airplanes: [
                Airplane(model: "Piper PA-18", registrationNumber: "D-EFGH", airframeHours: UInt64.max),
                PoweredAirplane(
                    model: "Robin DR400", registrationNumber: "D-EABC", airframeHours: 4_000, engineHorsepower: 180,
                    engineHours: 1_200),
                Glider(
                    model: "ASK 21", registrationNumber: "D-5421", airframeHours: 9_000, aerotowLaunchCount: 1_500,
                    winchLaunchCount: 8_000),
            ]
        )
    }

    @Test func pilotRoundTripsWithEverySubclassField() throws {
        let value = ClassRegistry.pilots.encode(Self.makePilot())
        let pilot = try ClassRegistry.pilots.decode(Pilot.self, from: value)
        #expect(pilot.name == "Hanna Reitsch")
        #expect(pilot.licenseNumber == "D-1234")
        #expect(pilot.dateOfBirth == Date(timeIntervalSinceReferenceDate: -2_800_000_000))
        #expect(pilot.homeAirfield == nil)
        #expect(pilot.airplanes.count == 3)
        #expect(type(of: pilot.airplanes[0]) == Airplane.self)
        #expect(pilot.airplanes[0].airframeHours == UInt64.max)
        let powered = try #require(pilot.airplanes[1] as? PoweredAirplane)
        #expect(powered.engineHorsepower == 180)
        #expect(powered.engineHours == 1_200)
        #expect(powered.model == "Robin DR400")
        let glider = try #require(pilot.airplanes[2] as? Glider)
        #expect(glider.aerotowLaunchCount == 1_500)
        #expect(glider.winchLaunchCount == 8_000)
        #expect(glider.registrationNumber == "D-5421")
        #expect(ClassRegistry.pilots.encode(pilot) == value)
    }

    @Test func encodingWritesTagsNextToTheFieldsAndDropsNils() {
        let value = ClassRegistry.pilots.encode(Self.makePilot())
        #expect(value["homeAirfield"] == nil)
        #expect(value["class"] == nil)
        #expect(
            value["airplanes"]?[2] == [
                "class": "Glider", "model": "ASK 21", "registrationNumber": "D-5421", "airframeHours": 9_000,
                "aerotowLaunchCount": 1_500, "winchLaunchCount": 8_000,
            ])
        #expect(value["airplanes"]?[0]?["class"] == "Airplane")
        #expect(value["airplanes"]?[1]?["class"] == "PoweredAirplane")
    }

    @Test func subclassErrorsCarryThePath() {
        var value = ClassRegistry.pilots.encode(Self.makePilot())
        if case .dictionary(var pilot) = value, case .array(var airplanes)? = pilot["airplanes"],
            case .dictionary(var powered) = airplanes[1]
        {
            powered["engineHours"] = "12"
            airplanes[1] = .dictionary(powered)
            pilot["airplanes"] = .array(airplanes)
            value = .dictionary(pilot)
        }
        expectModelError(.typeMismatch, #"airplanes[1].engineHours: expected integer, found string "12""#) {
            () throws(HangarError) in try ClassRegistry.pilots.decode(Pilot.self, from: value)
        }
    }

    @Test func negativeAirframeHoursAreOutOfRange() {
        let value: PropertyList = [
            "name": "X",
            "airplanes": [["class": "Airplane", "model": "m", "registrationNumber": "r", "airframeHours": -1]],
        ]
        expectModelError(.outOfRange, "airplanes[0].airframeHours: integer -1 is out of range for UInt64") {
            () throws(HangarError) in try ClassRegistry.pilots.decode(Pilot.self, from: value)
        }
    }

    @Test func missingNameInAListOfPilots() {
        let pilots: PropertyList = ["pilots": [["airplanes": []]]]
        expectModelError(.missingKey, #"pilots[0]: missing key "name""#) { () throws(HangarError) in
            try DictionaryReader(pilots).read("pilots", as: [Pilot].self)
        }
    }
}
