import Foundation
import Hangar
import PropertyList
import Testing

/// Shapes shared by the encoder and decoder tests.
enum CodableFixtures {
    enum Rating: String, Codable { case ppl, cpl, atpl }

    struct Crew: Codable, Equatable {
        var name: String
        var hours: UInt64
        var nickname: String?
    }

    struct Flight: Codable, Equatable {
        var number: Int
        var departure: Date
        var manifest: Data
        var tracker: URL
        var id: UUID
        var rating: Rating
        var crew: [Crew]
        var fuel: [String: Double]
        var ballast: Float
        var odometer: UInt64
        var balance: Int64
        var remarks: String?
    }

    static let flight = Flight(
        number: 42,
        departure: Date(timeIntervalSinceReferenceDate: 3_600),
        manifest: Data([0xDE, 0xAD]),
        tracker: URL(string: "https://example.org/track/42")!,  // A literal known to parse; test code.
        id: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
        rating: .cpl,
        crew: [Crew(name: "Ada", hours: 12, nickname: nil), Crew(name: "Bo", hours: UInt64.max, nickname: "B")],
        fuel: ["left": 40.5, "right": 39],
        ballast: 0.25,
        odometer: UInt64(Int64.max) + 1,
        balance: Int64.min,
        remarks: nil
    )

    static let flightValue: PropertyList = [
        "number": 42,
        "departure": .date(3_600),
        "manifest": .data([0xDE, 0xAD]),
        "tracker": "https://example.org/track/42",
        "id": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
        "rating": "cpl",
        "crew": [
            ["name": "Ada", "hours": 12],
            ["name": "Bo", "hours": .integer(.init(UInt64.max)), "nickname": "B"],
        ],
        "fuel": ["left": 40.5, "right": 39.0],
        "ballast": 0.25,
        "odometer": .integer(.init(UInt64(Int64.max) + 1)),
        "balance": .integer(.init(Int64.min)),
    ]

    /// A class hierarchy that encodes its superclass through `superEncoder()`.
    class Vehicle: Codable {
        var wheels: Int
        init(wheels: Int) { self.wheels = wheels }
    }

    final class Truck: Vehicle {
        var payload: Double
        init(wheels: Int, payload: Double) {
            self.payload = payload
            super.init(wheels: wheels)
        }
        enum CodingKeys: String, CodingKey { case payload }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            payload = try container.decode(Double.self, forKey: .payload)
            try super.init(from: container.superDecoder())
        }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(payload, forKey: .payload)
            try super.encode(to: container.superEncoder())
        }
    }
}

@Suite struct PropertyListValueEncoderTests {
    @Test func encodesEveryKindAndDropsNilOptionals() throws {
        let value = try PropertyListValueEncoder().encode(CodableFixtures.flight)
        #expect(value == CodableFixtures.flightValue)
        #expect(value["remarks"] == nil)
        #expect(value["crew"]?[0]?["nickname"] == nil)
    }

    @Test func encodesTopLevelScalarsAndArrays() throws {
        #expect(try PropertyListValueEncoder().encode(UInt64.max) == .integer(.init(UInt64.max)))
        #expect(try PropertyListValueEncoder().encode("x") == "x")
        #expect(try PropertyListValueEncoder().encode([1, 2, 3]) == [1, 2, 3])
        #expect(try PropertyListValueEncoder().encode([[true], [false]]) == [[true], [false]])
    }

    @Test func superEncoderNestsTheSuperclass() throws {
        let value = try PropertyListValueEncoder().encode(CodableFixtures.Truck(wheels: 6, payload: 7.5))
        #expect(value == ["payload": 7.5, "super": ["wheels": 6]])
    }

    @Test func aNilInAnArrayIsUnrepresentable() {
        expectModelError(.unrepresentable, "list[1]: property lists have no null; leave the key out instead") {
            () throws(HangarError) in try PropertyListValueEncoder().encode(["list": [1, nil, 3] as [Int?]])
        }
    }

    @Test func aNilAtTheTopIsUnrepresentable() {
        expectModelError(.unrepresentable, "property lists have no null; leave the key out instead") {
            () throws(HangarError) in try PropertyListValueEncoder().encode(nil as Int?)
        }
    }

    struct Silent: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    @Test func aValueThatEncodesNothingIsUnrepresentable() {
        expectModelError(.unrepresentable, "inner: Silent encoded no value") { () throws(HangarError) in
            try PropertyListValueEncoder().encode(["inner": Silent()])
        }
    }

    struct Refuses: Encodable {
        struct Failure: Error {}
        func encode(to encoder: any Encoder) throws { throw Failure() }
    }

    @Test func aTypesOwnErrorIsWrappedWithItsPath() {
        do {
            _ = try PropertyListValueEncoder().encode(["a": [Refuses()]])
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.path.description == "a[0]")
            #expect(error.underlying is Refuses.Failure)
        }
    }

    @Test func userInfoReachesTheEncoder() throws {
        struct EchoesUserInfo: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(encoder.userInfo[CodingUserInfoKey(rawValue: "unit")!] as? String ?? "none")
            }
        }
        let key = try #require(CodingUserInfoKey(rawValue: "unit"))
        #expect(try PropertyListValueEncoder(userInfo: [key: "kg"]).encode(EchoesUserInfo()) == "kg")
    }
}
