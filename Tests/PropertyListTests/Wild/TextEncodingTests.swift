import Testing

@testable import PropertyList

/// The text-encoding pre-pass of the XML and OpenStep readers (``TextEncoding``): what CF reads is read with CF's
/// value; invalid sequences are typed errors with a location. CF's verdicts quoted here were taken with
/// Scripts/cf-dump.swift.
@Suite struct TextEncodingTests {
    static let body = "<plist version=\"1.0\"><dict><key>k</key><string>ç€😀</string></dict></plist>"
    static let value: PropertyList = ["k": "ç€😀"]

    static func utf16(_ text: String, bigEndian: Bool) -> [UInt8] {
        text.utf16.flatMap { unit in
            bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
    }

    static func utf32(_ text: String, bigEndian: Bool) -> [UInt8] {
        text.unicodeScalars.flatMap { scalar in
            let bytes = (0..<4).map { UInt8(truncatingIfNeeded: scalar.value >> (8 * UInt32($0))) }
            return bigEndian ? bytes.reversed() : bytes
        }
    }

    // MARK: Byte order marks

    @Test func utf16AndUTF32XMLWithAByteOrderMarkIsRead() throws {
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n" + Self.body
        let inputs: [[UInt8]] = [
            [0xFE, 0xFF] + Self.utf16(xml, bigEndian: true),
            [0xFF, 0xFE] + Self.utf16(xml, bigEndian: false),
            [0x00, 0x00, 0xFE, 0xFF] + Self.utf32(xml, bigEndian: true),
            [0xFF, 0xFE, 0x00, 0x00] + Self.utf32(xml, bigEndian: false),
        ]
        for bytes in inputs {
            #expect(try PropertyList(xml: bytes) == Self.value)
            // Format detection looks past the mark.
            let (value, format) = try PropertyList.decode(bytes)
            #expect(value == Self.value)
            #expect(format == .xml)
        }
    }

    @Test func utf16StringsFileWithAByteOrderMarkIsRead() throws {
        // What Xcode writes for Localizable.strings: UTF-16 with a mark, a comment, `"key" = "value";` lines.
        let text = "/* Greeting */\n\"hello\" = \"Grüß dich 😀\";\n\"bye\" = \"\\U00e7a\";\n"
        let expected: PropertyList = ["hello": "Grüß dich 😀", "bye": "ça"]
        for bigEndian in [true, false] {
            let bytes = (bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]) + Self.utf16(text, bigEndian: bigEndian)
            #expect(try PropertyList(openStep: bytes) == expected)
            let (value, format) = try PropertyList.decode(bytes)
            #expect(value == expected)
            #expect(format == .openStep)
        }
        // A strings file that starts with `"` is tried as JSON first, then read as OpenStep.
        let quoted = [0xFF, 0xFE] + Self.utf16("\"a\" = \"b\";", bigEndian: false)
        let (value, format) = try PropertyList.decode(quoted)
        #expect(value == ["a": "b"])
        #expect(format == .openStep)
    }

    @Test func theByteOrderMarkWinsOverTheDeclaration() throws {
        // As in CF: with a mark, the declaration's name is not consulted.
        let xml = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><string>é</string>"
        #expect(try PropertyList(xml: [0xEF, 0xBB, 0xBF] + Array(xml.utf8)) == "é")
        #expect(try PropertyList(xml: [0xFF, 0xFE] + Self.utf16(xml, bigEndian: false)) == "é")
    }

    // MARK: Declared 8-bit encodings

    static let declared: [(name: String, byte: UInt8, expected: String)] = [
        ("ISO-8859-1", 0xE7, "ç"),
        ("latin1", 0xFF, "ÿ"),
        ("iso_8859-1", 0x80, "\u{80}"),
        // CF reads a US-ASCII file's high bytes as ISO-8859-1 (CFString's 8-bit path does).
        ("US-ASCII", 0xE7, "ç"),
        ("windows-1252", 0x80, "€"),
        ("cp1252", 0x9F, "Ÿ"),
        ("windows-1252", 0xE9, "é"),
        // Apple's ROMAN.TXT; CF itself refuses a `macintosh` declaration (see TextEncoding).
        ("macintosh", 0x8D, "ç"),
        ("MacRoman", 0xDB, "€"),
        ("x-mac-roman", 0xF0, "\u{F8FF}"),
        ("UTF-8", 0x41, "A"),
    ]

    @Test(arguments: declared)
    func aDeclaredEncodingIsReadAsCFConvertsIt(name: String, byte: UInt8, expected: String) throws {
        let bytes =
            Array("<?xml version=\"1.0\" encoding=\"\(name)\"?>\n<plist><string>a".utf8) + [byte]
            + Array("b</string></plist>".utf8)
        #expect(try PropertyList(xml: bytes) == .string("a" + expected + "b"))
    }

    @Test func spacesAroundTheEqualsSignAndSingleQuotesAreRead() throws {
        let bytes =
            Array("<?xml version='1.0' encoding = 'ISO-8859-1' ?><string>".utf8) + [0xE9] + Array("</string>".utf8)
        #expect(try PropertyList(xml: bytes) == "é")
    }

    @Test func aDeclarationAfterBlankLinesIsNotConsulted() {
        // CF reads the encoding only from a declaration at the first byte; after blank lines the text is UTF-8.
        let bytes =
            Array("\n<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><string>".utf8) + [0xE9] + Array("</string>".utf8)
        let error = propertyListError { _ = try PropertyList(xml: bytes) }
        #expect(error?.code == .invalidValue)
        #expect(error?.message == "Found invalid UTF-8")
    }

    @Test func anUnknownEncodingIsUnsupportedAndNamed() {
        let error = propertyListError {
            _ = try PropertyList(xml: Array("<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><true/>".utf8))
        }
        #expect(error?.code == .unsupported)
        #expect(error?.message.hasPrefix("Found unsupported encoding \"Shift_JIS\"") == true)
        #expect(error?.location == .line(1, column: 31))
    }

    @Test func aDeclaredUTF16WithoutAMarkIsRefused() {
        // The declaration itself was read as 8-bit text, so it cannot be UTF-16. CF refuses it too.
        let error = propertyListError {
            _ = try PropertyList(xml: Array("<?xml version=\"1.0\" encoding=\"UTF-16\"?><true/>".utf8))
        }
        #expect(error?.code == .malformed)
    }

    @Test func openStepTextIsNeverDecodedByADeclaration() {
        // Only XML has a declaration; OpenStep text without a mark is UTF-8 (CF: the same).
        let error = propertyListError { _ = try PropertyList(openStep: [0x22, 0xE9, 0x22]) }
        #expect(error?.code == .invalidValue)
    }

    // MARK: Strict where CF is lax

    @Test func anUnpairedSurrogateIsRefusedWithItsLocation() {
        let text = "<string>a\nb"
        var bytes = [0xFF, 0xFE] + Self.utf16(text, bigEndian: false) + [0x00, 0xD8]
        bytes += Self.utf16("c</string>", bigEndian: false)
        let error = propertyListError { _ = try PropertyList(xml: bytes) }
        #expect(error?.code == .invalidValue)
        #expect(error?.message == "Found an unpaired UTF-16 surrogate D800")
        #expect(error?.location == .line(2, column: 2))
        let low = [0xFE, 0xFF] + Self.utf16("\"", bigEndian: true) + [0xDC, 0x00, 0x00, 0x22]
        #expect(propertyListError { _ = try PropertyList(openStep: low) }?.code == .invalidValue)
    }

    @Test func textEndingInsideACodeUnitIsRefused() {
        let bytes = [0xFE, 0xFF] + Self.utf16("<true/>", bigEndian: true) + [0x0A]
        let error = propertyListError { _ = try PropertyList(xml: bytes) }
        #expect(error?.code == .invalidValue)
        #expect(error?.message == "The text ends in the middle of a UTF-16 character")
    }

    @Test func aUTF32ValueThatIsNotAScalarIsRefused() {
        let bytes = [0x00, 0x00, 0xFE, 0xFF] + Self.utf32("<string>", bigEndian: true) + [0x00, 0x11, 0x00, 0x00]
        let error = propertyListError { _ = try PropertyList(xml: bytes) }
        #expect(error?.code == .invalidValue)
        #expect(error?.location == .line(1, column: 9))
    }

    @Test func aByteWindows1252LeavesUndefinedIsRefused() {
        let bytes =
            Array("<?xml version=\"1.0\" encoding=\"windows-1252\"?>\n<string>".utf8) + [0x81] + Array("</string>".utf8)
        let error = propertyListError { _ = try PropertyList(xml: bytes) }
        #expect(error?.code == .invalidValue)
        #expect(error?.message == "Found byte 0x81, which windows-1252 does not define")
        #expect(error?.location == .line(2, column: 9))
    }

    @Test func utf16WithoutAByteOrderMarkIsUnsupported() {
        // CF recognises it but skips its first character, so it never reads such a file.
        for bytes in [Self.utf16("<true/>", bigEndian: false), Self.utf16("{a=b;}", bigEndian: true)] {
            let error = propertyListError { _ = try PropertyList.decode(bytes) }
            #expect(error?.code == .unsupported)
        }
    }

    @Test func transcodingIsBounded() throws {
        // The worst cases: 8-bit characters of three UTF-8 bytes, and UTF-16 units of three.
        let macRoman =
            Array("<?xml version=\"1.0\" encoding=\"macintosh\"?>".utf8) + [UInt8](repeating: 0xF0, count: 1000)
        let out = try #require(try TextEncoding.utf8Text(of: macRoman, xmlDeclaration: true))
        #expect(out.count <= 3 * macRoman.count)
        let wide = [0xFE, 0xFF] + [UInt8](repeating: 0xFF, count: 2000)
        let fromUTF16 = try #require(try TextEncoding.utf8Text(of: wide, xmlDeclaration: false))
        #expect(fromUTF16.count <= 3 * wide.count / 2)
        #expect(try TextEncoding.utf8Text(of: Array("<true/>".utf8), xmlDeclaration: true) == nil)
    }
}
