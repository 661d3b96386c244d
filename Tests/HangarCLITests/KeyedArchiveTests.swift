import Testing

/// Keyed archives (NSKeyedArchiver's UIDs) through the command line, as `plutil` treats them.
@Suite struct KeyedArchiveTests {
    private static let archive = CLI.corpus + "/apple-keyed-archive.bplist"

    /// The first rewrite sorts the archive's dictionary keys (its writer listed them as it met them); from then on
    /// binary to binary is byte for byte, UIDs included.
    @Test func binaryToBinaryIsByteForByte() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let first = directory + "/first.bplist"
        #expect(try CLI.run(["convert", "binary1", Self.archive, "-o", first]).status == 0)
        let result = try CLI.run(["convert", "binary1", first, "-o", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutBytes == CLI.bytes(first))
        #expect(CLI.bytes(first).contains(0x80))  // UIDs written as UIDs (marker 0x80), not as dictionaries
    }

    @Test func throughXMLAndBackIsByteForByte() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let first = directory + "/first.bplist"
        #expect(try CLI.run(["convert", "binary1", Self.archive, "-o", first]).status == 0)
        let xml = directory + "/archive.xml"
        #expect(try CLI.run(["convert", "xml1", Self.archive, "-o", xml]).status == 0)
        let text = String(decoding: CLI.bytes(xml), as: UTF8.self)
        #expect(text.contains("\t\t<key>root</key>\n\t\t<dict>\n\t\t\t<key>CF$UID</key>\n\t\t\t<integer>1</integer>\n"))
        let back = try CLI.run(["convert", "binary1", xml, "-o", "-"])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(back.stdoutBytes == CLI.bytes(first))
    }

    @Test func jsonRefusesAUIDUnlessLossy() throws {
        let refused = try CLI.run(["convert", "json", Self.archive, "-o", "-"])
        #expect(refused.status == 1)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.hasPrefix("\(Self.archive): A UID cannot be written as JSON"))
        #expect(refused.stderr.hasSuffix(" at $objects[1].$class; --lossy writes a UID as {\"CF$UID\": n}\n"))
        let lossy = try CLI.run(["convert", "json", "--lossy", Self.archive, "-o", "-"])
        #expect(lossy.status == 0, "\(lossy.stderr)")
        #expect(lossy.stdout.contains(#""$top":{"root":{"CF$UID":1}}"#))
    }

    @Test func printShowsUIDsAsPlutilDoes() throws {
        let result = try CLI.run(["print", Self.archive])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"root\" => <CFKeyedArchiverUID>{value = 1}\n"))
        #expect(result.stdout.contains("\"$class\" => <CFKeyedArchiverUID>{value = 2}\n"))
    }
}
