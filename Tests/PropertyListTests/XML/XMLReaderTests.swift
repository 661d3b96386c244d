import Testing

@testable import PropertyList

@Suite struct XMLReaderTests {
    // MARK: Corpus conformance

    static let gunk: [UInt8] = Array("<lots of binary gunk>".utf8) + [0, 1, 2, 3]
    static let lotsOfGunk: [UInt8] = Array([[UInt8]](repeating: gunk, count: 10).joined())

    /// The value of `apple-cocoa-testdata.xml` (CPython's `_create()`).
    static let appleTestData: PropertyList = [
        "aBigInt": .integer(PropertyList.Integer(9_223_372_036_854_775_764 as Int64)),
        "aBigInt2": .integer(PropertyList.Integer(9_223_372_036_854_775_852 as UInt64)),
        "aDate": .date(120_479_613),
        "aDict": [
            "aFalseValue": false,
            "aTrueValue": true,
            "aUnicodeValue": "Mässig, Maß",
            "anotherString": "<hello & 'hi' there!>",
            "deeperDict": ["a": 17, "b": 32.5, "c": [1, 2, "text"]],
        ],
        "aFloat": 0.5,
        "aList": ["A", "B", 12, 32.5, [1, 2, 3]],
        "aNegativeBigInt": -80_000_000_000,
        "aNegativeInt": -5,
        "aString": "Doodah",
        "anEmptyDict": [:],
        "anEmptyList": [],
        "anInt": 728,
        "nestedData": [.data(lotsOfGunk)],
        "someData": .data(Array("<binary gunk>".utf8)),
        "someMoreData": .data(lotsOfGunk),
        "Åbenraa": "That was a unicode key.",
    ]

    static let corpus: [(file: String, expected: PropertyList)] = [
        ("apple-cocoa-testdata.xml", appleTestData),
        (
            "corelibs-keyedarchive-uuid.xml",
            [
                "$archiver": "NSKeyedArchiver",
                "$objects": [
                    "$null",
                    [
                        "$class": .uid(2),
                        "NS.uuidbytes": .data([
                            0x0A, 0xD8, 0x63, 0xBA, 0x75, 0x84, 0x40, 0xCF, 0x88, 0x96, 0xBD, 0x87, 0xB3, 0x28, 0x0C,
                            0x34,
                        ]),
                    ],
                    ["$classes": ["NSUUID", "NSObject"], "$classname": "NSUUID"],
                ],
                "$top": ["root": .uid(1)],
                "$version": 100_000,
            ]
        ),
        (
            "libplist-cdata.xml",
            [
                "cdata&key":
                    "string with cdata content:  !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~ !!!"
            ]
        ),
        ("libplist-empty-keys.xml", ["": "empty key with comment"]),
        (
            "libplist-entities.xml",
            [
                "some test entitites": [
                    "copyright": "©", "multiple entitites": "⼠⼡⼢",
                    "multiple entitites with characters inbetween": "a⼣b⼤c⼥d",
                ],
                "one byte entity": [
                    "one byte entity": "@", "one byte entity with text after": "@z",
                    "one byte entity with text before": "a@", "one byte entity with text before & after": "a@z",
                ],
                "two-byte utf-8": [
                    "two-byte utf-8": "Ä", "two-byte utf-8 with text after": "Ëyz",
                    "two-byte utf-8 with text before": "abÖ", "two-byte utf-8 with text before & after": "abÜyz",
                ],
                "three byte utf-8": [
                    "three byte utf-8": "\u{FFE0}", "three byte utf-8 with text after": "\u{FFE1}xyz",
                    "three byte utf-8 with text before": "abc\u{FFE5}",
                    "three byte utf-8 with text before & after": "abc\u{FFE6}xyz",
                ],
                "four byte utf-8": [
                    "four byte utf-8": "\u{1D562}", "four byte utf-8 with text after": "\u{1D563}wxyz",
                    "four byte utf-8 with text before": "abcd\u{1D564}",
                    "four byte utf-8 with text before & after": "abcd\u{1D565}wxyz",
                ],
            ]
        ),
        ("libplist-hex.xml", 7_932_961_166_869),
        (
            "libplist-signedunsigned.xml",
            [
                -1, .integer(PropertyList.Integer(UInt64.max)), .integer(PropertyList.Integer(Int64.max)),
                .integer(PropertyList.Integer(Int64.min)),
                .integer(PropertyList.Integer(9_223_372_036_854_775_808 as UInt64)),
            ]
        ),
        (
            "rust-xml.xml",
            [
                "Author": "William Shakespeare",
                "Lines": ["It is a tale told by an idiot,     ", "Full of sound and fury, signifying nothing."],
                "Death": 1564,
                "Height": 1.6,
                "Data": .data([0, 0, 0, 0xBE, 0, 0, 0, 3, 0, 0, 0, 0x1E, 0, 0, 0]),
                "Birthdate": .date(-619_446_474),
                "Blank": "",
                "BiggestNumber": .integer(PropertyList.Integer(UInt64.max)),
                "SmallestNumber": .integer(PropertyList.Integer(Int64.min)),
                "HexademicalNumber": 3_735_928_559,
                "IsTrue": true,
                "IsNotFalse": false,
                "Pets": "A cat & a dog.",
            ]
        ),
        (
            "swift-generic-properties.xml",
            [
                "array1": [
                    "arr0", 42, false, .date(-781_099_200), .data([0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11, 0x22, 0x33]),
                ],
                "item1": "value1",
                "item2": "value2",
            ]
        ),
    ]

    @Test(arguments: corpus)
    func corpusFileDecodesToTheManifestValue(file: String, expected: PropertyList) throws {
        let bytes = try CorpusFiles.bytes(file)
        let value = try PropertyList(xml: bytes)
        #expect(value == expected, "\(file)")
        // Detection picks XML too.
        #expect(try PropertyList.decode(bytes).format == .xml)
    }

    @Test func everyValidXMLFileInTheCorpusIsCovered() {
        let files = Set(CorpusFiles.files(suffix: ".xml"))
        #expect(!files.isEmpty, "no XML files found in \(Corpus.directory)")
        #expect(files == Set(Self.corpus.map(\.file)))
    }

    // MARK: Invalid corpus

    static let invalidCorpus: [(file: String, code: PropertyListError.Code, line: Int, column: Int)] = [
        ("invalid/cpython-xml-entity-declaration.xml", .unsupported, 2, 103),
        ("invalid/go-xml-comment-differential.xml", .malformed, 4, 13),
        ("invalid/libplist-amp.xml", .malformed, 3, 14),
        ("invalid/libplist-invalid-tag.xml", .malformed, 3, 14),
        ("invalid/rust-xml-entity-error.xml", .malformed, 4, 6),
    ]

    @Test(arguments: invalidCorpus)
    func invalidCorpusFileIsRefused(file: String, code: PropertyListError.Code, line: Int, column: Int) throws {
        let bytes = try CorpusFiles.bytes(file)
        let error = propertyListError { _ = try PropertyList(xml: bytes) }
        #expect(error?.code == code, "\(file): \(String(describing: error))")
        #expect(error?.location == .line(line, column: column), "\(file): \(String(describing: error))")
    }

    @Test func everyInvalidXMLFileInTheCorpusIsCovered() {
        let files = Set(CorpusFiles.files(invalid: true, suffix: ".xml"))
        #expect(!files.isEmpty)
        #expect(files == Set(Self.invalidCorpus.map(\.file)))
    }

    // MARK: Messages, word for word

    static let badInputs: [(xml: String, code: PropertyListError.Code, description: String)] = [
        (
            "<plist><dict><string>x</string></dict></plist>", .malformed,
            "Found non-key inside <dict> at line 1, column 14"
        ),
        (
            "<dict>\n\t<key>a</key>\n</dict>", .malformed,
            "Value missing for key \"a\" inside <dict> at line 3, column 1"
        ),
        (
            "<dict><key>a</key><key>b</key></dict>", .malformed,
            "Value missing for key \"a\" inside <dict> at line 1, column 19"
        ),
        ("<array><key>a</key></array>", .malformed, "Found <key> inside <array> at line 1, column 8"),
        ("<key>a</key>", .malformed, "Found <key> outside <dict> at line 1, column 1"),
        (
            "<array><integer>1</integer></dict>", .malformed,
            "Found </dict> where </array> was expected at line 1, column 28"
        ),
        (
            "<array>\n<integer>1</integer>\n", .malformed,
            "Found no closing tag for <array> opened at line 1, column 1 at line 3, column 1"
        ),
        ("<string>abc", .malformed, "Found no closing tag for <string> at line 1, column 1"),
        ("<plist><foo/></plist>", .malformed, "Found unknown tag <foo> at line 1, column 8"),
        ("<plist>\n  hello\n</plist>", .malformed, "Found text inside <plist> at line 2, column 3"),
        ("<plist></plist>", .malformed, "Found no value inside <plist> at line 1, column 8"),
        (
            "<plist><true/><false/></plist>", .malformed,
            "Found more than one value inside <plist> at line 1, column 15"
        ),
        ("<true/> x", .malformed, "Found content after the root element at line 1, column 9"),
        ("", .malformed, "Found no root element at line 1, column 1"),
        ("hello", .malformed, "Found text before the root element at line 1, column 1"),
        (
            "<string>a&amp</string>", .malformed,
            "Found entity reference &amp without its terminating ';' at line 1, column 10"
        ),
        (
            "<string>&nbsp;</string>", .malformed,
            "Found unknown entity &nbsp; (entities are never declared or expanded) at line 1, column 9"
        ),
        (
            "<string>a & b</string>", .malformed,
            "Found '&' that does not start an entity reference (write &amp;) at line 1, column 11"
        ),
        (
            "<string>&#0;</string>", .invalidValue,
            "Found a character reference to U+0, which XML does not allow at line 1, column 9"
        ),
        (
            "<string>&#xD800;</string>", .invalidValue,
            "Found a character reference to U+D800, which XML does not allow at line 1, column 9"
        ),
        (
            "<string>&#x110000;</string>", .invalidValue,
            "Found a character reference to U+110000, which XML does not allow at line 1, column 9"
        ),
        (
            "<string>&#1234567890123;</string>", .malformed,
            "Found a character reference that is too long at line 1, column 9"
        ),
        ("<string>&#xZ;</string>", .malformed, "Found a malformed character reference at line 1, column 9"),
        (
            "<string>\u{FFFE}</string>", .malformed,
            "Found character U+FFFE, which XML does not allow at line 1, column 9"
        ),
        ("<integer>12a</integer>", .invalidValue, "Found invalid integer \"12a\" at line 1, column 10"),
        ("<integer> 0x </integer>", .invalidValue, "Found invalid integer \" 0x \" at line 1, column 10"),
        ("<integer>1_000</integer>", .invalidValue, "Found invalid integer \"1_000\" at line 1, column 10"),
        (
            "<integer>18446744073709551616</integer>", .invalidValue,
            "Found integer 18446744073709551616 out of range (−2^63 … 2^64−1) at line 1, column 10"
        ),
        (
            "<integer>-9223372036854775809</integer>", .invalidValue,
            "Found integer -9223372036854775809 out of range (−2^63 … 2^64−1) at line 1, column 10"
        ),
        ("<integer/>", .invalidValue, "Found empty <integer> at line 1, column 1"),
        ("<real>1.2.3</real>", .invalidValue, "Found invalid real \"1.2.3\" at line 1, column 7"),
        ("<real>0x1p3</real>", .invalidValue, "Found invalid real \"0x1p3\" at line 1, column 7"),
        ("<real>nan(1)</real>", .invalidValue, "Found invalid real \"nan(1)\" at line 1, column 7"),
        (
            "<date>2004-10-26</date>", .invalidValue,
            "Found invalid date \"2004-10-26\" (expected YYYY-MM-DDTHH:MM:SSZ) at line 1, column 7"
        ),
        (
            "<date>2004-02-30T00:00:00Z</date>", .invalidValue,
            "Found invalid date \"2004-02-30T00:00:00Z\" (expected YYYY-MM-DDTHH:MM:SSZ) at line 1, column 7"
        ),
        ("<data>AAA</data>", .invalidValue, "Found invalid base64 in <data> at line 1, column 7"),
        ("<data>AA=A</data>", .invalidValue, "Found invalid base64 in <data> at line 1, column 7"),
        ("<data>AA*A</data>", .invalidValue, "Found invalid base64 in <data> at line 1, column 7"),
        ("<data>AAAA=</data>", .invalidValue, "Found invalid base64 in <data> at line 1, column 7"),
        ("<true>x</true>", .malformed, "Found text inside <true> at line 1, column 7"),
        (
            "<string x=\"1\">a</string>", .malformed,
            "Found unexpected attribute \"x\" on <string> at line 1, column 9"
        ),
        ("<string>a<b/></string>", .malformed, "Found unexpected markup inside <string> at line 1, column 10"),
        ("<string>a</strin>", .malformed, "Found </strin> where </string> was expected at line 1, column 10"),
        ("<!-- a -- b --><true/>", .malformed, "Found '--' inside a comment at line 1, column 8"),
        ("<!-- a <true/>", .malformed, "Found unterminated comment at line 1, column 1"),
        (
            "<true/><?xml version=\"1.0\"?>", .malformed,
            "Found an XML declaration after the start of the document at line 1, column 8"
        ),
        (
            "<?xml version=\"1.0\" encoding=\"ISO-8859-2\"?><true/>", .unsupported,
            "Found unsupported encoding \"ISO-8859-2\" (read: UTF-8, UTF-16, UTF-32, ISO-8859-1, US-ASCII, "
                + "windows-1252, macintosh) at line 1, column 31"
        ),
        (
            "<!DOCTYPE plist [<!ENTITY a \"b\">]><string>&a;</string>", .unsupported,
            "Found an internal DTD subset; XML entity declarations are not supported in property lists at line 1, column 17"
        ),
        ("<!DOCTYPE plist><!DOCTYPE plist><true/>", .malformed, "Found a second DOCTYPE at line 1, column 17"),
        ("<string>a<![CDATA[b</string>", .malformed, "Found unterminated CDATA section at line 1, column 10"),
        ("\r\n\r\n<foo/>", .malformed, "Found unknown tag <foo> at line 3, column 1"),
        ("\n\n\n\t<true x/>", .malformed, "Found unexpected attribute \"x\" on <true> at line 4, column 8"),
    ]

    @Test(arguments: badInputs)
    func badInputIsRefusedWithItsMessage(xml: String, code: PropertyListError.Code, description: String) {
        let error = propertyListError { _ = try PropertyList(xml: Array(xml.utf8)) }
        #expect(error?.code == code)
        #expect(error?.description == description)
    }

    @Test func invalidUTF8InTextIsRefused() {
        let bytes = Array("<plist>\n<string>".utf8) + [0xC3, 0x28] + Array("</string></plist>".utf8)
        let error = propertyListError { _ = try PropertyList(xml: bytes) }
        #expect(error?.description == "Found invalid UTF-8 at line 2, column 9")
        #expect(error?.code == .invalidValue)
    }

    @Test func utf16InputWithoutAByteOrderMarkIsRefusedAsUnsupported() {
        // With a mark it is read (TextEncodingTests); without one CF does not read it either.
        let error = propertyListError { _ = try PropertyList(xml: [0x3C, 0x00, 0x61, 0x00]) }
        #expect(error?.code == .unsupported)
    }

    // MARK: Accepted forms

    static let accepted: [(xml: String, expected: PropertyList)] = [
        ("<string/>", ""),
        ("<string></string>", ""),
        ("<data/>", .data([])),
        ("<dict/>", [:]),
        ("<array></array>", []),
        ("<plist version=\"1.0\"><dict><key/><true/></dict></plist>", ["": true]),
        (
            "\u{FEFF}<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!-- c --><?pi x?><!DOCTYPE plist SYSTEM \"x>y\">\n<true/>\n<!-- end -->\n",
            true
        ),
        ("<true></true>", true),
        ("<false> <!-- c --> </false>", false),
        ("<string>a<!-- c -->b<?pi ?>c</string>", "abc"),
        ("<string><![CDATA[<&>]]>&lt;&gt;&amp;&apos;&quot;&#65;&#x42;</string>", "<&><>&'\"AB"),
        ("<string>line\r\nbreak\ttab</string>", "line\r\nbreak\ttab"),
        ("<plist>&#32;&#x9;\n<true/></plist>", true),
        ("<dict><key>k</key><integer>1</integer><key>k</key><integer>2</integer></dict>", ["k": 2]),
        ("<integer> \n+0x1F\t</integer>", 31),
        ("<integer>-0x10</integer>", -16),
        ("<integer>007</integer>", 7),
        ("<integer>-0</integer>", 0),
        ("<real> 1e3 </real>", 1000.0),
        ("<real>.5</real>", 0.5),
        ("<real>5.</real>", 5.0),
        ("<real>-0.0</real>", .real(-0.0)),
        ("<real>NaN</real>", .real(.nan)),
        ("<real>+Infinity</real>", .real(.infinity)),
        ("<real>-inf</real>", .real(-.infinity)),
        ("<real>1e400</real>", .real(.infinity)),
        ("<date>2001-01-01T00:00:00Z</date>", .date(0)),
        ("<date>2000-12-31T23:59:59Z</date>", .date(-1)),
        ("<date>0009-09-15T23:16:13Z</date>", .date(-62_839_154_627)),
        ("<date>2004-02-29T12:00:00.25Z</date>", .date(99_748_800.25)),
        ("<data>\n\tAA\nEC\tAw==\n</data>", .data([0, 1, 2, 3])),
        ("<data>AAE=</data>", .data([0, 1])),
        ("<data>AA==</data>", .data([0])),
        ("<data>&#65;A==</data>", .data([0])),
        ("<array><string>a</string><dict/><array/><integer>1</integer></array>", ["a", [:], [], 1]),
    ]

    @Test(arguments: accepted)
    func acceptedFormDecodes(xml: String, expected: PropertyList) throws {
        #expect(try PropertyList(xml: Array(xml.utf8)) == expected)
    }

    // MARK: Hostile input

    @Test func tenThousandDeepNestingFailsOnTheDepthLimit() {
        let depth = 10_000
        let xml = String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
        let error = propertyListError { _ = try PropertyList(xml: Array(xml.utf8)) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.location == .line(1, column: 512 * 7 + 1))
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        let xml =
            String(repeating: "<dict><key>k</key>", count: 511) + "<array/>" + String(repeating: "</dict>", count: 511)
        var value = try PropertyList(xml: Array(xml.utf8))
        var levels = 0
        while case .dictionary(let entries) = value, let inner = entries["k"] {
            value = inner
            levels += 1
        }
        #expect(levels == 511)
        let tight = DecodingLimits(maxDepth: 3)
        #expect(try PropertyList(xml: Array("<array><array><array/></array></array>".utf8), limits: tight) == [[[]]])
        // An empty container is a level too.
        let tooDeep = propertyListError {
            _ = try PropertyList(xml: Array("<array><array><array><dict/></array></array></array>".utf8), limits: tight)
        }
        #expect(tooDeep?.code == .limitExceeded)
        #expect(tooDeep?.location == .line(1, column: 22))
    }

    @Test func billionLaughsIsRefusedBeforeAnyExpansion() {
        var xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [\n<!ENTITY lol \"lol\">\n"
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            xml += "<!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">\n"
        }
        xml += "]>\n<string>&lol9;</string>\n"
        let error = propertyListError { _ = try PropertyList(xml: Array(xml.utf8)) }
        #expect(error?.code == .unsupported)
        #expect(error?.location == .line(2, column: 17))
    }

    @Test func externalEntityIsNeverFetched() {
        let declared = "<!DOCTYPE plist [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]><string>&xxe;</string>"
        #expect(propertyListError { _ = try PropertyList(xml: Array(declared.utf8)) }?.code == .unsupported)
        // Without a declaration the reference is simply unknown.
        let undeclared = "<!DOCTYPE plist SYSTEM \"file:///etc/passwd\"><string>&xxe;</string>"
        let error = propertyListError { _ = try PropertyList(xml: Array(undeclared.utf8)) }
        #expect(error?.code == .malformed)
        #expect(error?.message.hasPrefix("Found unknown entity &xxe;") == true)
    }

    @Test func hugeNumericEntityIsRefused() {
        let xml = "<string>&#" + String(repeating: "9", count: 100_000) + ";</string>"
        let error = propertyListError { _ = try PropertyList(xml: Array(xml.utf8)) }
        #expect(error?.code == .malformed)
        #expect(error?.location == .line(1, column: 9))
        let hex = "<string>&#x0000000041;</string>"
        #expect(propertyListError { _ = try PropertyList(xml: Array(hex.utf8)) }?.code == .malformed)
    }

    @Test func everyTruncationOfAValidFileIsRefused() throws {
        let bytes = try CorpusFiles.bytes("apple-cocoa-testdata.xml")
        // The whole file ends with "</plist>\n": every shorter prefix lacks the closing tag.
        let complete = bytes.count - 1
        #expect(try PropertyList(xml: Array(bytes[..<complete])) == Self.appleTestData)
        for length in 0..<(complete - 1) {
            let error = propertyListError { _ = try PropertyList(xml: Array(bytes[..<length])) }
            #expect(error != nil, "prefix of \(length) bytes was accepted")
            if error == nil { break }
        }
    }

    @Test func everyTruncationOfASmallValueIsRefused() {
        let xml = Array(
            "<dict><key>a&amp;</key><array><data>AAE=</data><real>1.5</real><date>2001-01-01T00:00:00Z</date></array></dict>"
                .utf8)
        for length in 0..<xml.count {
            #expect(propertyListError { _ = try PropertyList(xml: Array(xml[..<length])) } != nil, "prefix \(length)")
        }
    }
}
