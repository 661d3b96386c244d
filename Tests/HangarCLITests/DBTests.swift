import Foundation
import Testing

@Suite struct DBTests {
    /// A document envelope as XML text.
    static func envelope(major: Int, minor: Int = 0, name: String) -> [UInt8] {
        Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>majorVersion</key><integer>\(major)</integer><key>minorVersion</key><integer>\(minor)</integer>
            <key>name</key><string>\(name)</string>
            </dict></plist>
            """.utf8)
    }

    private func write(_ bytes: [UInt8], _ path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test func putGetListHistoryRemove() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let db = directory + "/store.sqlite"
        try write(Self.envelope(major: 1, name: "Amelia"), directory + "/amelia.plist")
        var result = try CLI.run(["db", "put", "--db", db, "pilots", "amelia", directory + "/amelia.plist"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "1\n")
        result = try CLI.run(["db", "put", "--db", db, "pilots", "amelia", directory + "/amelia.plist"])
        #expect(result.stdout == "2\n")

        #expect(try CLI.run(["db", "ls", "--db", db]).stdout == "pilots\n")
        #expect(try CLI.run(["db", "ls", "--db", db, "pilots"]).stdout == "amelia\n")

        result = try CLI.run(["db", "get", "--db", db, "pilots", "amelia"])
        #expect(result.stdout == "{\n  \"majorVersion\" => 1\n  \"minorVersion\" => 0\n  \"name\" => \"Amelia\"\n}\n")

        result = try CLI.run(["db", "get", "--db", db, "pilots", "amelia", "-o", directory + "/out.plist"])
        #expect(result.status == 0)
        #expect(Array(CLI.bytes(directory + "/out.plist").prefix(8)) == Array("bplist00".utf8))
        result = try CLI.run([
            "db", "get", "--db", db, "pilots", "amelia", "-o", "-", "--format", "xml1", "--revision", "1",
        ])
        #expect(result.stdout.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist"))

        result = try CLI.run(["db", "history", "--db", db, "pilots", "amelia"])
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("1 1.0 ") && !lines[0].hasSuffix("current"))
        #expect(lines[1].hasPrefix("2 1.0 ") && lines[1].hasSuffix(" current"))

        result = try CLI.run(["db", "rm", "--db", db, "pilots", "amelia"])
        #expect(result.status == 0 && result.stdout.isEmpty)
        result = try CLI.run(["db", "rm", "--db", db, "pilots", "amelia"])
        #expect(result.status == 1)
        #expect(result.stderr == "\(db): No document pilots/amelia\n")
    }

    @Test func missingStoreCollectionKeyAndBadFiles() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let db = directory + "/store.sqlite"
        var result = try CLI.run(["db", "ls", "--db", db])
        #expect(result.status == 1)
        #expect(result.stderr == "\(db): No such store\n")
        #expect(!FileManager.default.fileExists(atPath: db), "reading never creates a store")

        try write(Self.envelope(major: 1, name: "A"), directory + "/a.plist")
        _ = try CLI.run(["db", "put", "--db", db, "pilots", "a", directory + "/a.plist"])
        result = try CLI.run(["db", "ls", "--db", db, "gliders"])
        #expect(result.status == 1 && result.stderr == "\(db): No collection gliders\n")
        result = try CLI.run(["db", "get", "--db", db, "pilots", "nobody"])
        #expect(result.status == 1 && result.stderr == "\(db): No document pilots/nobody\n")
        result = try CLI.run(["db", "history", "--db", db, "pilots", "nobody"])
        #expect(result.status == 1 && result.stderr == "\(db): No document pilots/nobody\n")

        let notEnvelope = CLI.corpus + "/rust-binary.bplist"
        result = try CLI.run(["db", "put", "--db", db, "pilots", "x", notEnvelope])
        #expect(result.status == 1)
        #expect(result.stderr == "\(notEnvelope): Not a document envelope: The document has no majorVersion\n")
        let broken = CLI.corpus + "/invalid/gen-cycle-self-array.bplist"
        result = try CLI.run(["db", "put", "--db", db, "pilots", "x", broken])
        #expect(result.status == 1 && result.stderr.hasPrefix("\(broken): Object 0 contains itself"))
        #expect(try CLI.run(["db", "ls", "--db", db, "pilots"]).stdout == "a\n")
    }

    @Test func anOlderFileNeverReplacesANewerMajor() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let db = directory + "/store.sqlite"
        try write(Self.envelope(major: 3, name: "New"), directory + "/new.plist")
        try write(Self.envelope(major: 2, name: "Old"), directory + "/old.plist")
        _ = try CLI.run(["db", "put", "--db", db, "pilots", "p", directory + "/new.plist"])
        var result = try CLI.run(["db", "put", "--db", db, "pilots", "p", directory + "/old.plist"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("major version 3, newer than this code writes (2); it was not overwritten"))
        #expect(try CLI.run(["db", "get", "--db", db, "pilots", "p"]).stdout.contains("\"New\""))
        result = try CLI.run(["db", "put", "--db", db, "pilots", "p", directory + "/old.plist", "--force"])
        #expect(result.status == 0 && result.stdout == "2\n")
        result = try CLI.run([
            "db", "put", "--db", db, "pilots", "p", directory + "/old.plist", "--expected-revision", "1",
        ])
        #expect(result.status == 1 && result.stderr.contains("Expected revision 1, but the stored revision is 2"))
    }

    @Test func exportImportCheckBackup() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let db = directory + "/store.sqlite"
        for name in ["amelia", "bessie", "jean/batten"] {
            try write(Self.envelope(major: 1, name: name), directory + "/in.plist")
            _ = try CLI.run(["db", "put", "--db", db, "pilots", name, directory + "/in.plist"])
        }
        var result = try CLI.run(["db", "export", "--db", db, "pilots", directory + "/out", "--format", "xml1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == ["amelia", "bessie", "jean%2Fbatten"].map { "\(directory)/out/\($0).plist\n" }.joined())

        let copy = directory + "/copy.sqlite"
        let files = ["amelia", "bessie", "jean%2Fbatten"].map { "\(directory)/out/\($0).plist" }
        result = try CLI.run(["db", "import", "--db", copy, "pilots"] + files)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "amelia 1\nbessie 1\njean/batten 1\n")
        #expect(try CLI.run(["db", "ls", "--db", copy, "pilots"]).stdout == "amelia\nbessie\njean/batten\n")

        // One bad file imports nothing, and the one-line error names it.
        let bad = directory + "/bad.plist"
        try write(Array("not a plist".utf8), bad)
        let other = directory + "/other.sqlite"
        result = try CLI.run(["db", "import", "--db", other, "pilots", files[0], bad, files[1]])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("\(bad): pilots/bad: Not a property list"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try CLI.run(["db", "ls", "--db", other]).stdout == "")

        result = try CLI.run(["db", "check", "--db", db])
        #expect(result.status == 0 && result.stdout == "ok\n")
        result = try CLI.run(["db", "backup", "--db", db, directory + "/backup.sqlite"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try CLI.run(["db", "ls", "--db", directory + "/backup.sqlite", "pilots"]).stdout
                == "amelia\nbessie\njean/batten\n")

        result = try CLI.run(["db", "export", "--db", db, "nothing", directory + "/none"])
        #expect(result.status == 1 && result.stderr == "\(db): No collection nothing\n")
    }

    @Test(arguments: ["ls", "get", "put", "rm", "history", "export", "import", "check", "salvage", "backup"])
    func everyVerbHasHelp(verb: String) throws {
        let result = try CLI.run(["db", verb, "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("--db <db>"))
    }
}
