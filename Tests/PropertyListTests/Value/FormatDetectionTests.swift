import Testing

@testable import PropertyList

@Suite struct FormatDetectionTests {
    @Test(arguments: [
        ("swift-empty-dict.bplist", PropertyListFormat.binary),
        ("apple-cocoa-testdata.xml", .xml),
        ("libplist-entities.xml", .xml),
    ])
    func corpusFilesAreDetected(name: String, format: PropertyListFormat) throws {
        #expect(try PropertyList.decode(Corpus.bytes(Corpus.directory + "/" + name)).format == format)
    }

    @Test(arguments: [
        (#"{"a": [1, 2.5]}"#, PropertyListFormat.json),
        ("{ a = (1, 2.5); }", .openStep),
        ("(one, two)", .openStep),
        ("<0fab 12>", .openStep),
        ("\u{FEFF}  <plist><true/></plist>", .xml),
        ("key = value;", .openStep),
    ])
    func textFormatsAreDetected(text: String, format: PropertyListFormat) throws {
        #expect(try PropertyList.decode(Array(text.utf8)).format == format)
    }

    /// Text that starts like both JSON and OpenStep and is neither: the error comes from the reader that
    /// got further, the one the text was meant for.
    @Test func theFurthestErrorIsReported() {
        expectTextError(.malformed, "Found 'N' where ',' or ')' was expected", line: 2, column: 15) {
            try PropertyList.decode(Array("{ name = \"A\";\n  fleet = (N1 N2); }".utf8))
        }
        expectTextError(.malformed, "Found '}' where a value was expected", line: 2, column: 7) {
            try PropertyList.decode(Array("{\"a\": 1,\n \"b\": }".utf8))
        }
    }

    @Test func emptyInputIsNoFormat() {
        expectError(.unknownFormat, containing: "The input is empty", at: 2) { try PropertyList.decode([0x20, 0x0A]) }
    }

    private func expectTextError(
        _ code: PropertyListError.Code, _ message: String, line: Int, column: Int,
        sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Any
    ) {
        do {
            _ = try body()
            Issue.record("nothing was thrown", sourceLocation: sourceLocation)
        } catch let error as PropertyListError {
            #expect(error.code == code && error.message == message, "\(error)", sourceLocation: sourceLocation)
            #expect(error.location == .line(line, column: column), "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }
}
