import Testing

@testable import PropertyList

@Suite struct OpenStepReaderTests {
    static let accepted: [(text: String, expected: PropertyList)] = [
        (
            """
            // A comment
            {
                name = "Hangar 1"; /* inline */ planes = ( Cessna, "Piper Cub", ); empty = ();
                data = <0fAB 12
                    cd>;
                "quoted key" = {};
                path = /usr/local/bin:$PATH;
                number = -12.5e+3;
            }
            """,
            [
                "name": "Hangar 1", "planes": ["Cessna", "Piper Cub"], "empty": [],
                "data": .data([0x0F, 0xAB, 0x12, 0xCD]),
                "quoted key": [:], "path": "/usr/local/bin:$PATH", "number": "-12.5e+3",
            ]
        ),
        (#""\n\t\r\"\\\a\b\f\v\'\101\7""#, "\n\t\r\"\\\u{7}\u{8}\u{C}\u{B}'A\u{7}"),
        (#""\U00e9\u263A\U41 \Ud83d\Ude00""#, "é☺A 😀"),
        ("'single \"quoted\"'", "single \"quoted\""),
        ("\"raw\nnewline é\"", "raw\nnewline é"),
        ("(a,b)", ["a", "b"]),
        ("( )", []),
        ("<>", .data([])),
        ("{ a = 1; a = 2; }", ["a": "2"]),
        ("\u{FEFF}plain", "plain"),
        ("greeting = hello;\n\"bye\" = (x);\n", ["greeting": "hello", "bye": ["x"]]),
        ("k = v; // trailing comment", ["k": "v"]),
    ]

    @Test(arguments: accepted)
    func acceptedTextDecodes(text: String, expected: PropertyList) throws {
        #expect(try PropertyList(openStep: Array(text.utf8)) == expected)
    }

    static let refused: [(text: String, code: PropertyListError.Code, description: String)] = [
        ("{ a = b }", .malformed, "Found '}' where ';' was expected after the value of key \"a\" at line 1, column 9"),
        ("{ a b; }", .malformed, "Found 'b' where '=' was expected after key \"a\" at line 1, column 5"),
        ("{\n  = b; }", .malformed, "Found '=' where a key was expected at line 2, column 3"),
        ("\"abc", .malformed, "Found unterminated string at line 1, column 1"),
        ("( a, /* never ends", .malformed, "Found unterminated comment at line 1, column 6"),
        ("(a b)", .malformed, "Found 'b' where ',' or ')' was expected at line 1, column 4"),
        ("(a,,b)", .malformed, "Found ',' where a value was expected at line 1, column 4"),
        ("(a", .malformed, "Found the end of the input where ',' or ')' was expected at line 1, column 3"),
        ("<0fa>", .malformed, "Found an odd number of hex digits in data at line 1, column 1"),
        ("<0fxz>", .malformed, "Found 'x' in data (expected hex digits) at line 1, column 4"),
        ("<0f", .malformed, "Found unterminated data at line 1, column 1"),
        (#""\Ud800x""#, .invalidValue, "Found an unpaired surrogate \\UD800 at line 1, column 2"),
        ("a b", .malformed, "Found 'b' after the root value at line 1, column 3"),
        (
            "a = b", .malformed,
            "Found the end of the input where ';' was expected after the value of key \"a\" at line 1, column 6"
        ),
        ("", .malformed, "Found no value (the input is empty) at line 1, column 1"),
        ("  // only a comment\n", .malformed, "Found no value (the input is empty) at line 2, column 1"),
        ("#", .malformed, "Found '#' where a value was expected at line 1, column 1"),
        ("{ } }", .malformed, "Found '}' after the root value at line 1, column 5"),
    ]

    @Test(arguments: refused)
    func badTextIsRefusedWithItsMessage(text: String, code: PropertyListError.Code, description: String) {
        let error = propertyListError { _ = try PropertyList(openStep: Array(text.utf8)) }
        #expect(error?.code == code)
        #expect(error?.description == description)
    }

    @Test func invalidUTF8InAQuotedStringIsRefused() {
        #expect(propertyListError { _ = try PropertyList(openStep: [0x22, 0xC3, 0x22]) }?.code == .invalidValue)
    }

    @Test func tenThousandDeepNestingFailsOnTheDepthLimit() {
        let text = String(repeating: "(", count: 10_000) + String(repeating: ")", count: 10_000)
        let error = propertyListError { _ = try PropertyList(openStep: Array(text.utf8)) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.location == .line(1, column: 513))
        let dictionaries = String(repeating: "{a=", count: 10_000)
        #expect(propertyListError { _ = try PropertyList(openStep: Array(dictionaries.utf8)) }?.code == .limitExceeded)
    }

    @Test func everyTruncationOfABracketedValueIsRefused() {
        let text = Array(#"{ a = ( "x\n", <01 02>, y ); "b" = {}; }"#.utf8)
        #expect(throws: Never.self) { try PropertyList(openStep: text) }
        for length in 0..<text.count {
            #expect(
                propertyListError { _ = try PropertyList(openStep: Array(text[..<length])) } != nil, "prefix \(length)")
        }
    }

    @Test func detectionReadsOpenStepWhenJSONFails() throws {
        let (value, format) = try PropertyList.decode(Array("{ a = (b, c); }".utf8))
        #expect(format == .openStep)
        #expect(value == ["a": ["b", "c"]])
        #expect(try PropertyList.decode(Array("<0001>".utf8)).format == .openStep)
    }
}
