import Testing

/// Keyed archives (NSKeyedArchiver's UIDs) through the command line, as `plutil` treats them.
@Suite struct KeyedArchiveTests {
    private static let archive = CLI.corpus + "/apple-keyed-archive.bplist"

    /// Binary to binary keeps the archive's graph (its writer's key order, its objects), so NSKeyedArchiver's file
    /// comes back byte for byte, UIDs included.
    @Test func binaryToBinaryIsByteForByte() throws {
        let result = try CLI.run(["convert", "binary1", Self.archive, "-o", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutBytes == CLI.bytes(Self.archive))
        #expect(CLI.bytes(Self.archive).contains(0x80))  // UIDs written as UIDs (marker 0x80), not as dictionaries
    }

    /// XML keeps the value, not the archiver's key order: back in binary (keys sorted) it prints as the archive
    /// does, UIDs included, and rewriting that file changes nothing.
    @Test func throughXMLAndBackKeepsTheValue() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let xml = directory + "/archive.xml"
        #expect(try CLI.run(["convert", "xml1", Self.archive, "-o", xml]).status == 0)
        let text = String(decoding: CLI.bytes(xml), as: UTF8.self)
        #expect(text.contains("\t\t<key>root</key>\n\t\t<dict>\n\t\t\t<key>CF$UID</key>\n\t\t\t<integer>1</integer>\n"))
        let back = directory + "/back.bplist"
        let result = try CLI.run(["convert", "binary1", xml, "-o", back])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try CLI.run(["print", back]).stdout == CLI.run(["print", Self.archive]).stdout)
        #expect(try CLI.run(["convert", "binary1", back, "-o", "-"]).stdoutBytes == CLI.bytes(back))
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
