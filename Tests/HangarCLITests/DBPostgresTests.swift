import Foundation
import HangarTestSupport
import Testing

/// Every `hangar db` verb on a PostgreSQL store (`--url`), against the test server, through the real binary.
@Suite(.enabled(if: TestPostgres.shouldRun)) struct DBPostgresTests {
    /// The server's URL with a schema of this test's own.
    static func url(_ label: String) throws -> String {
        try TestPostgres.requireURL() + "?schema=" + TestPostgres.uniqueSchemaName(label)
    }

    @Test func theVerbsWorkOnAPostgresStore() throws {
        let url = try Self.url("cliverbs")
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let file = directory + "/amelia.plist"
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>majorVersion</key><integer>1</integer>\
            <key>minorVersion</key><integer>0</integer><key>name</key><string>Amelia</string></dict></plist>
            """.utf8
        ).write(to: URL(fileURLWithPath: file))
        #expect(try CLI.run(["db", "put", "--url", url, "pilots", "amelia", file]).stdout == "1\n")
        #expect(try CLI.run(["db", "put", "--url", url, "pilots", "amelia", file]).stdout == "2\n")
        #expect(try CLI.run(["db", "ls", "--url", url]).stdout == "pilots\n")
        #expect(try CLI.run(["db", "ls", "--url", url, "pilots"]).stdout == "amelia\n")
        let got = try CLI.run(["db", "get", "--url", url, "pilots", "amelia"])
        #expect(got.stdout.contains("\"name\" => \"Amelia\""), "\(got.stderr)")
        let history = try CLI.run(["db", "history", "--url", url, "pilots", "amelia"]).stdout
        #expect(history.split(separator: "\n").map { $0.split(separator: " ").first ?? "" } == ["1", "2"])
        #expect(
            try CLI.run(["db", "changes", "--url", url]).stdout == "1 pilots amelia 1 save\n2 pilots amelia 2 save\n")
        let exported = try CLI.run(["db", "export", "--url", url, "pilots", directory + "/out"])
        #expect(exported.stdout == directory + "/out/amelia.plist\n")
        #expect(try CLI.run(["db", "import", "--url", url, "copies", directory + "/out/amelia.plist"]).status == 0)
        let check = try CLI.run(["db", "check", "--url", url]).stdout
        #expect(check.hasSuffix("\nok\n"))
        #expect(check.hasPrefix("replication: synchronous_standby_names = '"))
        #expect(check.contains("replication: "))
        let salvage = try CLI.run(["db", "salvage", "--url", url, directory + "/salvaged.sqlite"])
        #expect(salvage.status == 0 && salvage.stdout == "salvaged 2 of 2 documents\n", "\(salvage.stderr)")
        let salvagedHistory = try CLI.run(["db", "history", "--db", directory + "/salvaged.sqlite", "pilots", "amelia"])
        #expect(salvagedHistory.stdout.split(separator: "\n").count == 2)
        #expect(try CLI.run(["db", "rm", "--url", url, "pilots", "amelia"]).status == 0)
        let missing = try CLI.run(["db", "get", "--url", url, "pilots", "amelia"])
        #expect(missing.status == 1)
        #expect(!missing.stderr.contains("hangar:hangar@"), "the password never reaches an error line")
        let backup = try CLI.run(["db", "backup", "--url", url, directory + "/copy.sqlite"])
        #expect(backup.status == 1)
        #expect(backup.stderr.hasSuffix(": backup copies SQLite stores; back up a PostgreSQL database with pg_dump\n"))
    }
}
