import Testing

@testable import PropertyList

@Suite struct JSONReaderTests {
    static let accepted: [(json: String, expected: PropertyList)] = [
        (#"{"a":[1,-2,3.5,true,false,"s"],"b":{}}"#, ["a": [1, -2, 3.5, true, false, "s"], "b": [:]]),
        ("\u{FEFF} [ ] ", []),
        ("18446744073709551615", .integer(PropertyList.Integer(UInt64.max))),
        ("-9223372036854775808", .integer(PropertyList.Integer(Int64.min))),
        ("-0", 0),
        ("1.0", 1.0),
        ("1e2", 100.0),
        ("-0.0", .real(-0.0)),
        ("2E-3", 0.002),
        (#"{"k":1,"k":2}"#, ["k": 2]),
        (#""\"\\\/\b\f\n\r\t\u0041\u00e9\ud83d\ude00\u0000""#, "\"\\/\u{8}\u{C}\n\r\tAé😀\u{0}"),
        ("\"é😀\"", "é😀"),
    ]

    @Test(arguments: accepted)
    func acceptedJSONDecodes(json: String, expected: PropertyList) throws {
        #expect(try PropertyList(json: Array(json.utf8)) == expected)
    }

    static let refused: [(json: String, code: PropertyListError.Code, description: String)] = [
        ("null", .unsupported, "Found null, which has no property-list form at line 1, column 1"),
        ("{\"a\":\n  null}", .unsupported, "Found null, which has no property-list form at line 2, column 3"),
        ("[1,]", .malformed, "Found ']' where a value was expected at line 1, column 4"),
        ("[1 2]", .malformed, "Found '2' where ',' or ']' was expected at line 1, column 4"),
        ("{\"a\" 1}", .malformed, "Found '1' where ':' was expected at line 1, column 6"),
        ("{1:2}", .malformed, "Found '1' where an object key was expected at line 1, column 2"),
        ("{\"a\":1", .malformed, "Found the end of the input where ',' or '}' was expected at line 1, column 7"),
        ("", .malformed, "Found the end of the input where a value was expected at line 1, column 1"),
        ("[] x", .malformed, "Found 'x' after the JSON value at line 1, column 4"),
        ("01", .malformed, "Found a number with a leading zero at line 1, column 1"),
        ("1.", .malformed, "Found a malformed number at line 1, column 1"),
        ("-", .malformed, "Found a malformed number at line 1, column 1"),
        ("+1", .malformed, "Found '+' where a value was expected at line 1, column 1"),
        ("NaN", .malformed, "Found 'N' where a value was expected at line 1, column 1"),
        (
            "18446744073709551616", .invalidValue,
            "Found integer 18446744073709551616 out of range (−2^63 … 2^64−1) at line 1, column 1"
        ),
        (
            "-9223372036854775809", .invalidValue,
            "Found integer -9223372036854775809 out of range (−2^63 … 2^64−1) at line 1, column 1"
        ),
        ("1e400", .invalidValue, "Found number 1e400 out of range at line 1, column 1"),
        ("\"a\nb\"", .malformed, "Found control character U+000A in a string (escape it) at line 1, column 3"),
        ("\"abc", .malformed, "Found unterminated string at line 1, column 1"),
        (#""\x""#, .malformed, "Found invalid escape '\\x' at line 1, column 2"),
        (#""\u12""#, .malformed, "Found a short \\u escape at line 1, column 2"),
        (#""\ud800""#, .invalidValue, "Found an unpaired surrogate \\uD800 at line 1, column 2"),
        (#""\ud800\u0041""#, .invalidValue, "Found an unpaired surrogate \\uD800 at line 1, column 2"),
        (#""\udc00""#, .invalidValue, "Found an unpaired surrogate \\uDC00 at line 1, column 2"),
        ("tru", .malformed, "Found 't' where a value was expected at line 1, column 1"),
    ]

    @Test(arguments: refused)
    func badJSONIsRefusedWithItsMessage(json: String, code: PropertyListError.Code, description: String) {
        let error = propertyListError { _ = try PropertyList(json: Array(json.utf8)) }
        #expect(error?.code == code)
        #expect(error?.description == description)
    }

    @Test func invalidUTF8IsRefused() {
        let error = propertyListError { _ = try PropertyList(json: [0x22, 0xFF, 0x22]) }
        #expect(error?.code == .invalidValue)
    }

    @Test func tenThousandDeepNestingFailsOnTheDepthLimit() {
        let json = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let error = propertyListError { _ = try PropertyList(json: Array(json.utf8)) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.location == .line(1, column: 513))
    }

    @Test func everyTruncationIsRefused() {
        let json = Array(#"{"a":[1,-2.5e3,true,false,"x\u00e9"],"b":{"c":[]}}"#.utf8)
        #expect(throws: Never.self) { try PropertyList(json: json) }
        for length in 0..<json.count {
            // "{"a":[1" style prefixes and even "1" inside are incomplete at the document level.
            #expect(propertyListError { _ = try PropertyList(json: Array(json[..<length])) } != nil, "prefix \(length)")
        }
    }

    @Test func detectionFallsBackToOpenStepOnlyForMalformedJSON() throws {
        #expect(try PropertyList.decode(Array(#"{"a":1}"#.utf8)).format == .json)
        #expect(propertyListError { _ = try PropertyList.decode(Array("[null]".utf8)) }?.code == .unsupported)
    }
}
