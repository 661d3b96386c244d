import Testing

@testable import PropertyList

@Suite struct JSONWriterTests {
    private func json(_ value: PropertyList, pretty: Bool = false, lossy: Bool = false) throws -> String {
        let options = EncodingOptions(json: JSONEncodingOptions(prettyPrinted: pretty, lossyDatesAndData: lossy))
        return String(decoding: try value.encoded(as: .json, options: options), as: UTF8.self)
    }

    static let compact: [(value: PropertyList, json: String)] = [
        (["b": [1, 2.5, true], "a": "x", "Å": [:], "B": []], #"{"B":[],"a":"x","b":[1,2.5,true],"Å":{}}"#),
        (1.0, "1.0"),
        (-0.0, "-0.0"),
        (1e16, "1e+16"),
        (0.1, "0.1"),
        (.integer(PropertyList.Integer(UInt64.max)), "18446744073709551615"),
        (.integer(PropertyList.Integer(Int64.min)), "-9223372036854775808"),
        ("q\"b\\s/\u{8}\u{C}\n\r\t\u{1}\u{1F}é😀", #""q\"b\\s/\b\f\n\r\t\u0001\u001fé😀""#),
        (false, "false"),
    ]

    @Test(arguments: compact)
    func valueIsWrittenCompactly(value: PropertyList, json expected: String) throws {
        #expect(try json(value) == expected)
    }

    @Test func prettyModeIndentsTwoSpacesWithSpacedColons() throws {
        let value: PropertyList = ["b": [1, [:]], "a": "x", "c": []]
        #expect(
            try json(value, pretty: true) == "{\n  \"a\" : \"x\",\n  \"b\" : [\n    1,\n    {}\n  ],\n  \"c\" : []\n}")
    }

    static let refused: [(value: PropertyList, path: String, message: String)] = [
        (
            ["objects": [1, 2, ["photo": .data([1])]]], "objects[2].photo",
            "Data cannot be written as JSON (lossyDatesAndData writes it as base64)"
        ),
        ([.date(0)], "[0]", "A date cannot be written as JSON (lossyDatesAndData writes it as a string)"),
        (["x": .real(.nan)], "x", "A real that is not finite (nan) cannot be written as JSON"),
        (.real(-.infinity), "", "A real that is not finite (-inf) cannot be written as JSON"),
    ]

    @Test(arguments: refused)
    func valueWithoutAJSONFormIsRefusedWithItsPath(value: PropertyList, path: String, message: String) {
        let error = propertyListError { _ = try value.encoded(as: .json) }
        #expect(error?.code == .unrepresentable)
        #expect(error?.location == .path(path))
        #expect(error?.message == message)
    }

    static let lossy: [(value: PropertyList, json: String)] = [
        (.date(120_479_613), #""2004-10-26T10:33:33Z""#),
        (.date(0.5), #""2001-01-01T00:00:00.5Z""#),
        (.date(-0.25), #""2000-12-31T23:59:59.75Z""#),
        (.date(0.0000004), #""2001-01-01T00:00:00Z""#),
        (.date(0.9999996), #""2001-01-01T00:00:01Z""#),
        (.data([0, 1, 2, 3]), #""AAECAw==""#),
        (.data([]), #""""#),
    ]

    @Test(arguments: lossy)
    func lossyModeWritesDatesAndDataAsStrings(value: PropertyList, json expected: String) throws {
        #expect(try json(value, lossy: true) == expected)
    }

    @Test func lossyModeStillRefusesNonFiniteValues() {
        let options = EncodingOptions(json: JSONEncodingOptions(lossyDatesAndData: true))
        #expect(
            propertyListError { _ = try PropertyList.date(.nan).encoded(as: .json, options: options) }?.code
                == .unrepresentable)
        #expect(
            propertyListError { _ = try PropertyList.real(.infinity).encoded(as: .json, options: options) }?.code
                == .unrepresentable)
    }

    @Test func nestingPast512IsRefused() throws {
        var value: PropertyList = [:]
        for _ in 1..<512 { value = ["k": value] }
        #expect(try PropertyList(json: value.encoded(as: .json)) == value)
        let error = propertyListError { _ = try PropertyList.array([value]).encoded(as: .json) }
        #expect(error?.code == .limitExceeded)
    }

    @Test(arguments: 0..<40)
    func randomValueRoundTripsThroughJSON(seed: Int) throws {
        var generator = ValueGenerator(
            seed: UInt64(seed), kinds: .init(dates: false, data: false, nonFiniteReals: false))
        let value = generator.value()
        for pretty in [false, true] {
            let options = EncodingOptions(json: JSONEncodingOptions(prettyPrinted: pretty))
            let written = try value.encoded(as: .json, options: options)
            let read = try PropertyList(json: written)
            #expect(read == value)
            #expect(try read.encoded(as: .json, options: options) == written)
        }
    }
}
