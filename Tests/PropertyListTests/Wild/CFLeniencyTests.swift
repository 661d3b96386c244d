import Testing

@testable import PropertyList

/// Leniency where CoreFoundation is lenient: in text, never in structure. Each CF verdict quoted here was taken
/// with Scripts/cf-dump.swift (CF's C parsers, as swift-corelibs-foundation ships them).
@Suite struct CFLeniencyTests {
    private func xml(_ text: String) throws -> PropertyList {
        try PropertyList(xml: Array(text.utf8))
    }

    private func openStep(_ text: String) throws -> PropertyList {
        try PropertyList(openStep: Array(text.utf8))
    }

    // MARK: XML prolog

    @Test func blankLinesBeforeTheXMLDeclarationAreSkipped() throws {
        // log2timeline's leading_whitespace.plist.
        #expect(try xml("\n\t <?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist><true/></plist>") == true)
        // Other markup still may not come first.
        let error = propertyListError { _ = try xml("<!-- c --><?xml version=\"1.0\"?><true/>") }
        #expect(error?.message == "Found an XML declaration after the start of the document")
    }

    @Test func plistAttributesAreSkippedUnread() throws {
        // Xamarin's mtouch wrote `<plist version=\"1.0\">` (with the backslashes) into runtime-options.plist.
        #expect(try xml("<plist version=\\\"1.0\\\"><string>a</string></plist>") == "a")
        #expect(try xml("<plist foo><string>a</string></plist>") == "a")
        #expect(
            propertyListError { _ = try xml("<plist version='1.0' />") }?.message == "Found no value inside <plist>")
    }

    @Test func plistAttributesDoNotReachPastTheTag() {
        #expect(
            propertyListError { _ = try xml("<plist version=\"1.0\"") }?.message == "Found unterminated tag <plist>")
        #expect(propertyListError { _ = try xml("<plist a<true/></plist>") }?.code == .malformed)
    }

    @Test func otherElementsStillHaveNoAttributes() {
        // go-plist's comment differential (`<string =">apple</string>`) stays refused.
        let error = propertyListError { _ = try xml("<plist><string x=\"1\">a</string></plist>") }
        #expect(error?.message == "Found unexpected attribute \"x\" on <string>")
    }

    @Test func aDoctypeIsSkippedAsCFSkipsIt() throws {
        let escapedQuotes =
            "<!DOCTYPE plist PUBLIC \\\"-//Apple//DTD PLIST 1.0//EN\\\" \\\"http://www.apple.com/DTDs/PropertyList-1.0.dtd\\\">"
        #expect(try xml(escapedQuotes + "\n<plist><true/></plist>") == true)
        #expect(try xml("<!DOCTYPE plist \"odd>\n<plist><true/></plist>") == true)
        #expect(try xml("<!DOCTYPE plist <x>\n<true/>") == true)
        #expect(try xml("<!DOCTYPE plist SYSTEM \"x>y\"><true/>") == true)
    }

    @Test func anInternalSubsetIsStillRefused() {
        let error = propertyListError { _ = try xml("<!DOCTYPE plist [<!ENTITY a \"b\">]><string>&a;</string>") }
        #expect(error?.code == .unsupported)
    }

    // MARK: XML text

    @Test func rawControlCharactersInTextAreKept() throws {
        // TextMate 1 wrote U+0003 and U+001B raw; CF reads every C0 control, NUL included.
        let controls = (0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }.filter { $0 != "\r" && $0 != "\n" }
        let text = String(controls)
        let value = try xml(
            "<dict><key>k\u{1B}</key><string>\(text)</string><key>c</key><string><![CDATA[\u{3}]]></string></dict>")
        #expect(value == ["k\u{1B}": .string(text), "c": "\u{3}"])
        // XML 1.0 cannot hold them: the writer refuses, the binary format keeps them.
        #expect(propertyListError { _ = try value.encoded(as: .xml) }?.code == .unrepresentable)
        #expect(try PropertyList(binary: value.encoded(as: .binary)) == value)
    }

    @Test func controlCharactersStillHaveNoPlaceBetweenElements() {
        #expect(propertyListError { _ = try xml("<array>\u{3}</array>") }?.message == "Found text inside <array>")
    }

    @Test func aRawCarriageReturnIsKeptAndWrittenAsAReference() throws {
        // textmate/ruby.tmbundle's New Method.plist: `<string>$\r</string>`; CF keeps the CR, expat makes it LF.
        let value = try xml(
            "<dict><key>keyEquivalent</key><string>$\r</string><key>crlf</key><string>a\r\nb</string></dict>")
        #expect(value == ["keyEquivalent": "$\r", "crlf": "a\r\nb"])
        let written = String(decoding: try value.encoded(as: .xml), as: UTF8.self)
        #expect(written.contains("<string>$&#13;</string>"))
        #expect(written.contains("<string>a&#13;\nb</string>"))
        #expect(!written.utf8.contains(0x0D))
        #expect(try PropertyList(xml: Array(written.utf8)) == value)
    }

    // MARK: Dates

    @Test(arguments: [
        // CF reads each; before 1582 the calendar is proleptic Gregorian, as in CF for years ≥ 0.
        ("1000-01-01T00:00:00Z", -31_588_531_200.0),
        ("0001-01-01T00:00:00Z", -63_113_904_000),
        ("0000-12-30T00:00:00Z", -63_114_076_800),
        ("1582-10-10T00:00:00Z", -13_198_032_000),
        // A negative year: ISO 8601's expanded form, astronomical numbering (0000 is 1 BC, -0001 is 2 BC).
        ("-0001-01-01T00:00:00Z", -63_177_062_400),
        ("-0000-01-01T00:00:00Z", -63_145_526_400),
        ("-0044-03-15T12:00:00Z", -64_527_624_000),
    ])
    func earlyAndNegativeYearDatesAreRead(text: String, seconds: Double) throws {
        #expect(try xml("<date>\(text)</date>") == .date(seconds))
    }

    @Test func aNegativeYearRoundTripsThroughXML() throws {
        let value: PropertyList = ["ides": .date(-64_527_624_000)]
        let written = String(decoding: try value.encoded(as: .xml), as: UTF8.self)
        #expect(written.contains("<date>-0044-03-15T12:00:00Z</date>"))
        #expect(try PropertyList(xml: Array(written.utf8)) == value)
        #expect(PropertyList.iso8601Text(forDate: -64_527_624_000) == "-0044-03-15T12:00:00Z")
        #expect(PropertyList.iso8601Text(forDate: -31_588_531_200, fractionDigits: 3) == "1000-01-01T00:00:00Z")
        #expect(PropertyList.iso8601Text(forDate: 0.25, fractionDigits: 3) == "2001-01-01T00:00:00.25Z")
        #expect(PropertyList.iso8601Text(forDate: 1e300) == nil)
        // The inverse reads what both writers write, fractions included.
        #expect(PropertyList.date(fromISO8601Text: "-0044-03-15T12:00:00Z") == -64_527_624_000)
        #expect(PropertyList.date(fromISO8601Text: "2001-01-01T00:00:00.25Z") == 0.25)
        #expect(PropertyList.date(fromISO8601Text: "2001-01-01T00:00:00") == nil)
        #expect(PropertyList.date(fromISO8601Text: "yesterday") == nil)
    }

    @Test func invalidDatesAreStillRefused() {
        // CF normalises these (month 13 is January next year; -0001-02-29 is a day); they are not dates.
        for text in [
            "2020-13-01T00:00:00Z", "2020-02-30T00:00:00Z", "-0001-02-29T00:00:00Z", "--0001-01-01T00:00:00Z",
            "+2020-01-01T00:00:00Z", "99-01-01T00:00:00Z", "10000-01-01T00:00:00Z",
        ] {
            #expect(propertyListError { _ = try xml("<date>\(text)</date>") }?.code == .invalidValue, "\(text)")
        }
    }

    // MARK: Binary

    @Test func asciiStringsWithHighBytesAreReadAsLatin1() throws {
        // node-bplist-parser's sample1/iTunes-small: a non-Apple writer put UTF-8 in `5x` strings; CF reads each
        // byte as ISO-8859-1, so "é" (C3 A9) reads as "Ã©".
        let utf8InASCII = BinaryBuilder([[0x52, 0xC3, 0xA9]]).build()
        #expect(try PropertyList(binary: utf8InASCII) == "Ã©")
        let latin1 = BinaryBuilder([[0x53, 0x63, 0x61, 0xE9]]).build()
        #expect(try PropertyList(binary: latin1) == "caé")
        // Written back as UTF-16, and read back equal.
        #expect(try PropertyList(binary: PropertyList.string("Ã©").encoded(as: .binary)) == "Ã©")
    }

    // MARK: OpenStep escapes

    /// Each escape with CF's value (and `\u`, where Hangar reads GNUstep's).
    static let escapes: [(text: String, hangar: String, cf: String)] = [
        (#""\a\b\f\n\r\t\v""#, "\u{7}\u{8}\u{C}\n\r\t\u{B}", "\u{7}\u{8}\u{C}\n\r\t\u{B}"),
        (#""\"\'\\""#, "\"'\\", "\"'\\"),
        (#""\q\x41\?""#, "qx41?", "qx41?"),
        (#""\é""#, "é", "é"),
        ("\"a\\\nb\"", "a\nb", "a\nb"),
        (#""\101\0\12345""#, "A\u{0}S45", "A\u{0}S45"),
        // Octal above \177 is a NeXTSTEP character; CF keeps the value in a byte (\400 is \0), and 0xFE/0xFF
        // have no character (CF: U+0000).
        (#""\351\341\400\377""#, "ØÆ\u{0}\u{0}", "ØÆ\u{0}\u{0}"),
        (#""\U00e9\U00E7x\U41 ""#, "éçxA ", "éçxA "),
        (#""\U\Ug""#, "\u{0}\u{0}g", "\u{0}\u{0}g"),
        (#""\UD83D\UDE00""#, "😀", "😀"),
        // GNUstep's `\u`: CF reads the letter and the digits.
        (#""Fran\u00e7ais""#, "Français", "Franu00e7ais"),
        (#""\u65e5\U672c""#, "日本", "u65e5本"),
        // `\u` without a hex digit stands for `u`, as in CF.
        (#""\u \uz""#, "u uz", "u uz"),
    ]

    @Test(arguments: escapes)
    func openStepEscapesReadAsCFReadsThem(text: String, hangar: String, cf: String) throws {
        #expect(try openStep(text) == .string(hangar))
    }

    @Test func unpairedSurrogateEscapesAreStillRefused() {
        // CF keeps them; no other format can hold them.
        for text in [#""\UD800""#, #""\UDE00""#, #""\uD83D x""#, #""\UD83D\U0041""#] {
            #expect(propertyListError { _ = try openStep(text) }?.code == .invalidValue, "\(text)")
        }
    }
}
