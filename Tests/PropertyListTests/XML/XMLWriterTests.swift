import Testing

@testable import PropertyList

@Suite struct XMLWriterTests {
    private func xml(_ value: PropertyList) throws -> String {
        String(decoding: try value.encoded(as: .xml), as: UTF8.self)
    }

    /// The document around `body` (the root element's lines).
    private func document(_ body: String) -> String {
        String(decoding: XMLWriter.header, as: UTF8.self) + body + "</plist>\n"
    }

    @Test func appleTestDataReencodesByteForByte() throws {
        let bytes = try CorpusFiles.bytes("apple-cocoa-testdata.xml")
        let value = try PropertyList(xml: bytes)
        let written = try value.encoded(as: .xml)
        #expect(written == bytes)
        if written != bytes {
            // Show where they part, to make a failure readable.
            let index =
                zip(written, bytes).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(written.count, bytes.count)
            Issue.record("first difference at byte \(index)")
        }
    }

    @Test(arguments: ["corelibs-keyedarchive-uuid.xml", "libplist-signedunsigned.xml", "swift-generic-properties.xml"])
    func appleWrittenCorpusFileReencodesByteForByte(file: String) throws {
        let bytes = try CorpusFiles.bytes(file)
        #expect(try PropertyList(xml: bytes).encoded(as: .xml) == bytes)
    }

    static let layouts: [(value: PropertyList, body: String)] = [
        ("a<b>&c'\"", "<string>a&lt;b&gt;&amp;c'\"</string>\n"),
        (true, "<true/>\n"),
        ([false], "<array>\n\t<false/>\n</array>\n"),
        ([:], "<dict/>\n"),
        ([], "<array/>\n"),
        (.integer(PropertyList.Integer(UInt64.max)), "<integer>18446744073709551615</integer>\n"),
        (.integer(PropertyList.Integer(Int64.min)), "<integer>-9223372036854775808</integer>\n"),
        (0.1, "<real>0.1</real>\n"),
        (1.0, "<real>1.0</real>\n"),
        (-0.0, "<real>-0.0</real>\n"),
        (1e-5, "<real>1e-05</real>\n"),
        (1e16, "<real>1e+16</real>\n"),
        (.real(.nan), "<real>nan</real>\n"),
        (.real(.infinity), "<real>+infinity</real>\n"),
        (.real(-.infinity), "<real>-infinity</real>\n"),
        (.date(0), "<date>2001-01-01T00:00:00Z</date>\n"),
        (.date(0.999), "<date>2001-01-01T00:00:00Z</date>\n"),
        (.date(-0.5), "<date>2000-12-31T23:59:59Z</date>\n"),
        (.date(-63_145_526_400), "<date>0000-01-01T00:00:00Z</date>\n"),
        (.date(252_423_993_599), "<date>9999-12-31T23:59:59Z</date>\n"),
        (.data([]), "<data>\n</data>\n"),
        (.data([0, 1]), "<data>\nAAE=\n</data>\n"),
        (
            ["b": 1, "a": ["c": .data([0xFF])]],
            "<dict>\n\t<key>a</key>\n\t<dict>\n\t\t<key>c</key>\n\t\t<data>\n\t\t/w==\n\t\t</data>\n\t</dict>\n\t<key>b</key>\n\t<integer>1</integer>\n</dict>\n"
        ),
    ]

    @Test(arguments: layouts)
    func valueIsLaidOutAsAppleDoes(value: PropertyList, body: String) throws {
        #expect(try xml(value) == document(body))
    }

    @Test func dataLinesShrinkWithIndentUntilEightTabs() throws {
        // 76 − 8·indent characters per line, the indent capped at 8 for the line and its tabs.
        var value: PropertyList = .data([UInt8](repeating: 0xAB, count: 100))
        for _ in 0..<10 { value = [value] }
        let lines = try xml(value).split(separator: "\n", omittingEmptySubsequences: false)
        let dataLines = lines.filter { $0.hasPrefix(String(repeating: "\t", count: 8)) && !$0.contains("<") }
        #expect(dataLines.count == 12)  // 100 bytes = 136 characters in lines of 12
        #expect(dataLines.allSatisfy { !$0.hasPrefix(String(repeating: "\t", count: 9)) })
        #expect(dataLines.dropLast().allSatisfy { $0.count == 8 + 12 })
        #expect(lines.contains(Substring(String(repeating: "\t", count: 10) + "<data>")))

        let shallow = try xml(.data([UInt8](repeating: 0, count: 57)))
        #expect(shallow.contains("<data>\n" + String(repeating: "A", count: 76) + "\n</data>"))
    }

    static let unrepresentable: [(value: PropertyList, path: String, message: String)] = [
        (
            ["objects": [1, ["photo": "a\u{1}b"]]], "objects[1].photo",
            "A string holds U+0001, which XML 1.0 cannot hold"
        ),
        (["bad\u{0}key": 1], #"["bad\u{0}key"]"#, "A string holds U+0000, which XML 1.0 cannot hold"),
        (["x": "\u{FFFE}"], "x", "A string holds U+FFFE, which XML 1.0 cannot hold"),
        (["x": ["\u{FFFF}"]], "x[0]", "A string holds U+FFFF, which XML 1.0 cannot hold"),
        ([.date(.nan)], "[0]", "A date that is not finite cannot be written as XML"),
        (["when": .date(.infinity)], "when", "A date that is not finite cannot be written as XML"),
        (["when": .date(1e300)], "when", "A date outside years -9999…9999 cannot be written as XML"),
        // One second before -9999-01-01T00:00:00Z.
        (.date(-378_683_424_001), "", "A date outside years -9999…9999 cannot be written as XML"),
    ]

    @Test(arguments: unrepresentable)
    func unrepresentableValueIsRefusedWithItsPath(value: PropertyList, path: String, message: String) {
        let error = propertyListError { _ = try value.encoded(as: .xml) }
        #expect(error?.code == .unrepresentable)
        #expect(error?.location == .path(path))
        #expect(error?.message == message)
    }

    @Test func nestingPast512IsRefused() throws {
        var value: PropertyList = []
        for _ in 1..<512 { value = [value] }
        // 512 levels are written (and read back)…
        let written = try value.encoded(as: .xml)
        #expect(try PropertyList(xml: written) == value)
        // …513 are not.
        let error = propertyListError { _ = try PropertyList.array([value]).encoded(as: .xml) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.location == .path(String(repeating: "[0]", count: 512)))
    }

    @Test func tabAndLineFeedAreWrittenRawAndCarriageReturnAsAReference() throws {
        // A raw CR would survive CF's reader but not an XML 1.0 one (plistlib, libxml2): each turns it into LF.
        let value: PropertyList = "a\tb\nc\rd\r\ne"
        #expect(try xml(value) == document("<string>a\tb\nc&#13;d&#13;\ne</string>\n"))
        #expect(try PropertyList(xml: value.encoded(as: .xml)) == value)
        #expect(try xml(["k\r": 1]) == document("<dict>\n\t<key>k&#13;</key>\n\t<integer>1</integer>\n</dict>\n"))
    }

    @Test func firstSubsecondDatePathFindsTheFractionXMLDrops() {
        #expect(PropertyList.date(1.5).firstSubsecondDatePath == "")
        #expect(PropertyList.date(1).firstSubsecondDatePath == nil)
        let value: PropertyList = [
            "b": ["x": .date(2.25)],
            "a": [.date(3), "s", .date(-0.5)],
            "file name": .date(0.1),
        ]
        // Keys in their kept order (the order `hangar convert` writes them): "b" first.
        #expect(value.firstSubsecondDatePath == "b.x")
        var entries = value.dictionaryValue ?? [:]
        entries["b"] = nil
        #expect(PropertyList.dictionary(entries).firstSubsecondDatePath == "a[2]")
        #expect(PropertyList.dictionary(["file name": .date(0.1)]).firstSubsecondDatePath == "[\"file name\"]")
        #expect(PropertyList.array([.date(.nan), 1]).firstSubsecondDatePath == nil)
    }

    @Test(arguments: 0..<40)
    func randomValueRoundTripsThroughXML(seed: Int) throws {
        var generator = ValueGenerator(seed: UInt64(seed))
        let value = generator.value()
        let written = try value.encoded(as: .xml)
        let read = try PropertyList(xml: written)
        #expect(read == value)
        // Writing is deterministic: the decoded value writes the same bytes.
        #expect(try read.encoded(as: .xml) == written)
    }
}

/// The XML writer sizes its output with an estimating walk; an estimate below the output costs a second run,
/// so for text without escapes it must never fall short.
@Suite struct XMLSizeEstimateTests {
    @Test func theEstimateCoversTheOutputWithoutEscapes() throws {
        var deep: PropertyList = [.data(Array(repeating: 0xAB, count: 200)), false, -9_223_372_036_854_775_808]
        for level in 0..<12 { deep = level.isMultiple(of: 2) ? [deep] : ["k\(level)": deep] }
        let values: [PropertyList] = [
            [false, true, -1, .integer(.init(UInt64.max)), .real(-1.7976931348623157e308), .date(-64_000_000_000)],
            ["a": .data([]), "b": .data(Array(0...255)), "c": [], "d": [:], "e": "plain text, ünïcode ✈"],
            deep,
        ]
        for value in values {
            var estimate = XMLSizeEstimate()
            try ValueWalk.walk(value, keyOrder: .sorted, with: &estimate)
            let written = try value.encoded(as: .xml)
            #expect(estimate.bytes + XMLWriter.header.count + XMLWriter.footer.count >= written.count, "\(value)")
        }
    }
}
