import Foundation
import Testing

@Suite struct ConvertTests {
    @Test func inPlaceIsAtomicAndLeavesNoTemporaryFile() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let path = try CLI.copy("libplist-off8bytes.bplist", to: directory)
        let before = CLI.bytes(path)
        let result = try CLI.run(["convert", "binary1", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty)
        let after = CLI.bytes(path)
        // Rewritten with 1-byte offsets: smaller, same content.
        #expect(after.count < before.count)
        #expect(try FileManagerList.names(in: directory) == ["libplist-off8bytes.bplist"])
    }

    @Test func outputToStandardOutput() throws {
        let source = CLI.corpus + "/apple-cocoa-testdata.bplist"
        let result = try CLI.run(["convert", "binary1", source, "-o", "-"])
        #expect(result.status == 0)
        #expect(result.stdoutBytes == CLI.bytes(source), "Cocoa's bytes, reproduced")
    }

    @Test func outputToAnotherFile() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let source = CLI.corpus + "/go-array-16-items.bplist"
        let result = try CLI.run(["convert", "binary1", source, "-o", directory + "/out.plist"])
        #expect(result.status == 0)
        #expect(CLI.bytes(directory + "/out.plist") == CLI.bytes(source))
    }

    @Test func badInputLeavesTheFileAlone() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let path = directory + "/bad.plist"
        let original = CLI.bytes(CLI.corpus + "/invalid/cpython-date-nan.bplist")
        try Data(original).write(to: URL(fileURLWithPath: path))
        let result = try CLI.run(["convert", "xml1", path])
        #expect(result.status == 1)
        #expect(result.stderr == "\(path): A date is nan, not a finite time at byte offset 8\n")
        #expect(CLI.bytes(path) == original)
        #expect(try FileManagerList.names(in: directory) == ["bad.plist"])
    }

    @Test func unwritableDestination() throws {
        let source = CLI.corpus + "/swift-empty-dict.bplist"
        let result = try CLI.run(["convert", "binary1", source, "-o", "/nonexistent/dir/out.plist"])
        #expect(result.status == 1)
        #expect(result.stderr == "/nonexistent/dir: No such file or directory\n")
    }

    @Test func unknownFormatIsAUsageError() throws {
        let result = try CLI.run(["convert", "xml2", CLI.corpus + "/swift-empty-dict.bplist"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("xml2"))
    }
}

@Suite struct ConvertTextFormatsTests {
    @Test func binaryToXMLReproducesApplesXML() throws {
        let result = try CLI.run(["convert", "xml1", CLI.corpus + "/apple-cocoa-testdata.bplist", "-o", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutBytes == CLI.bytes(CLI.corpus + "/apple-cocoa-testdata.xml"))
    }

    @Test func xmlToBinaryReproducesApplesBinary() throws {
        let result = try CLI.run(["convert", "binary1", CLI.corpus + "/apple-cocoa-testdata.xml", "-o", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutBytes == CLI.bytes(CLI.corpus + "/apple-cocoa-testdata.bplist"))
    }

    @Test func xmlWarnsWhenADateLosesItsFraction() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let input = directory + "/half-second.bplist"
        // {"when": <date 0.5 s after 2001-01-01>}, written byte by byte.
        let bplist: [UInt8] =
            Array("bplist00".utf8) + [0xD1, 0x01, 0x02, 0x54] + Array("when".utf8)
            + [0x33, 0x3F, 0xE0, 0, 0, 0, 0, 0, 0] + [0x08, 0x0B, 0x10]
            + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 3] + [UInt8](repeating: 0, count: 8)
            + [0, 0, 0, 0, 0, 0, 0, 0x19]
        try Data(bplist).write(to: URL(fileURLWithPath: input))
        let result = try CLI.run(["convert", "xml1", input, "-o", directory + "/out.plist"])
        #expect(result.status == 0)
        #expect(
            result.stderr
                == "\(input): warning: XML keeps whole seconds; the fraction of the date at when (and any others) is dropped\n"
        )
        #expect(
            String(decoding: CLI.bytes(directory + "/out.plist"), as: UTF8.self).contains(
                "<date>2001-01-01T00:00:00Z</date>"))
    }

    @Test func jsonRefusesDatesNamingThePath() throws {
        let source = CLI.corpus + "/rust-binary.bplist"
        let result = try CLI.run(["convert", "json", source, "-o", "-"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("\(source): A date cannot be written as JSON"))
        #expect(result.stderr.hasSuffix(" at Birthdate; --lossy writes dates and data as strings\n"))
    }

    @Test func lossyJSONWritesDatesAndData() throws {
        let result = try CLI.run([
            "convert", "json", "--lossy", CLI.corpus + "/swift-generic-properties.bplist", "-o", "-",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout
                == #"{"array1":["arr0",42,false,"1976-04-01T12:00:00Z","qrvM3QARIjM="],"item1":"value1","item2":"value2"}"#
        )
    }

    @Test func jsonInputIsDetected() throws {
        let result = try CLI.run(
            ["convert", "xml1", "-", "-o", "-"], stdin: Array(#"{"a": [1, 2.5, true, "x"]}"#.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("<key>a</key>\n\t<array>\n\t\t<integer>1</integer>\n\t\t<real>2.5</real>"))
    }

    @Test func openStepInputIsDetected() throws {
        let result = try CLI.run(
            ["convert", "json", "-", "-o", "-"], stdin: Array("{ name = \"Amelia\"; fleet = (N1, N2); }".utf8))
        #expect(result.status == 0, "\(result.stderr)")
        // The keys in the file's order: convert keeps it.
        #expect(result.stdout == #"{"name":"Amelia","fleet":["N1","N2"]}"#)
    }

    @Test func hostileXMLIsRefusedWithLineAndColumn() throws {
        let bad = CLI.corpus + "/invalid/cpython-xml-entity-declaration.xml"
        let result = try CLI.run(["lint", bad])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix(bad + ": "))
        #expect(result.stderr.contains("at line "))
    }
}

/// `hangar convert` writes every key of a dictionary, even keys Swift's `String` would call equal.
@Suite struct ConvertExactKeyTests {
    @Test func canonicallyEquivalentKeysSurviveEveryConversion() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let path = directory + "/keys.plist"
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
            \t<key>caf\u{E9}</key>
            \t<integer>1</integer>
            \t<key>cafe\u{301}</key>
            \t<integer>2</integer>
            \t<key>\u{212B}</key>
            \t<integer>3</integer>
            \t<key>\u{C5}</key>
            \t<integer>4</integer>
            </dict>
            </plist>

            """
        try Data(xml.utf8).write(to: URL(fileURLWithPath: path))
        for format in ["binary1", "json", "xml1"] {
            let result = try CLI.run(["convert", format, path])
            #expect(result.status == 0, "\(format): \(result.stderr)")
        }
        // Back in XML after binary and JSON, keys in the file's order: all four, none merged.
        let text = String(decoding: CLI.bytes(path), as: UTF8.self)
        let keys = text.split(separator: "\n").filter { $0.contains("<key>") }.map {
            $0.replacing("\t<key>", with: "").replacing("</key>", with: "")
        }
        let scalars = keys.map { $0.unicodeScalars.map(\.value) }
        #expect(scalars == [[0x63, 0x61, 0x66, 0xE9], [0x63, 0x61, 0x66, 0x65, 0x301], [0x212B], [0xC5]])
    }
}
