import Foundation
import Testing

/// `--db PATH` or `--url URL`: exactly one names the store, and a URL's password never reaches an error line.
@Suite struct DBStoreOptionTests {
    /// ArgumentParser's status for a validation error (EX_USAGE).
    static let usageStatus: Int32 = 64

    @Test(arguments: ["ls", "get", "put", "rm", "history", "export", "import", "check", "backup", "changes"])
    func bothOrNeitherIsAUsageError(verb: String) throws {
        let operands: [String] =
            switch verb {
            case "get", "rm", "history": ["pilots", "amelia"]
            case "put": ["pilots", "amelia", "file.plist"]
            case "export", "import": ["pilots", "file.plist"]
            case "backup": ["copy.sqlite"]
            default: []
            }
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let db = directory + "/store.sqlite"
        var result = try CLI.run(["db", verb] + operands, in: directory)
        #expect(result.status == Self.usageStatus)
        #expect(result.stderr == "hangar: Name the store with --db PATH or --url URL.\n", "\(result.stderr)")
        result = try CLI.run(["db", verb, "--db", db, "--url", "postgres://u@h/x"] + operands, in: directory)
        #expect(result.status == Self.usageStatus)
        #expect(
            result.stderr == "hangar: Name the store with --db PATH or --url URL, not both.\n",
            "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: db), "a usage error opens no store")
    }

    @Test func anUnknownSchemeIsOneLineNamingIt() throws {
        let result = try CLI.run(["db", "ls", "--url", "mysql://user:secret@db.example:3306/hangar?password=also"])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "user@db.example:3306/hangar: Unknown store URL scheme \"mysql\" (use postgres:// or "
                + "postgresql://, or --db PATH)\n")
        #expect(result.stdout.isEmpty)
    }

    @Test func aURLWithoutASchemeIsOneLineAndNotRepeated() throws {
        let result = try CLI.run(["db", "ls", "--url", "user:secret@somewhere/db"])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(!result.stderr.contains("secret"))
    }

    @Test(arguments: ["postgres", "postgresql", "POSTGRES"])
    func aPostgresURLsErrorLineLeavesThePasswordOut(scheme: String) throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let file = directory + "/amelia.plist"
        try Data(DBTests.envelope(major: 1, name: "Amelia")).write(to: URL(fileURLWithPath: file))
        // Nothing listens on port 1: each command waits its 5 seconds for a connection, then says so in one line.
        let verbs = scheme == "postgres" ? [["ls"], ["put", "pilots", "amelia", file], ["check"]] : [["ls"]]
        for arguments in verbs {
            let result = try CLI.run(["db"] + arguments + ["--url", "\(scheme)://user:secret@127.0.0.1:1/x"])
            #expect(result.status == 1)
            #expect(!result.stderr.contains("secret"), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(
                result.stderr.hasPrefix(
                    "user@127.0.0.1:1/x: No connection to the PostgreSQL server within 5.0 seconds"),
                "\(result.stderr)")
        }
    }

    @Test func checkReportsADocumentWhoseBytesCannotBeRead() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let db = directory + "/store.sqlite"
        try Data(DBTests.envelope(major: 1, name: "Amelia")).write(to: URL(fileURLWithPath: directory + "/a.plist"))
        for key in ["amelia", "bessie"] {
            #expect(try CLI.run(["db", "put", "--db", db, "pilots", key, directory + "/a.plist"]).status == 0)
        }
        #expect(try CLI.run(["db", "check", "--db", db]).stdout == "ok\n")
        // Damage one stored body behind the store's back (python3 is an interop peer CI installs).
        let damage = try CLI.runShell(
            "python3 -c \"import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                + "c.execute(\\\"UPDATE documents SET body = X'626F67757321' WHERE key = 'bessie'\\\"); c.commit()\" "
                + "'\(db)'")
        try #require(damage.status == 0, "\(damage.stderr)")
        let result = try CLI.run(["db", "check", "--db", db])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("document not readable: pilots/bessie: "), "\(result.stdout)")
        #expect(result.stdout.split(separator: "\n").count == 1, "\(result.stdout)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }
}
