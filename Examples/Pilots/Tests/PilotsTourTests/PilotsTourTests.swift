import Foundation
import HangarTestSupport
import Testing

/// Runs the built `pilots` executable as a real process, on a SQLite store in a temporary folder.
@Suite struct PilotsTourTests {
    /// `pilots` sits beside the test bundle in the build folder.
    static let executable = ProcessRunner.builtExecutable(named: "pilots") ?? "pilots"

    static let headings = [
        "== Step 1. Register the models and their class tags ==",
        "== Step 2. Save pilots with mixed fleets ==",
        "== Step 3. Load them back: every subclass field intact ==",
        "== Step 4. Migrate old documents ==",
        "== Step 5. Revisions, history and a stale save ==",
        "== Step 6. Export to .plist files ==",
        "== Step 7. A document from a future version is refused and left untouched ==",
        "== Step 8. Follow the change feed ==",
        "== Step 9. Check the store and back it up ==",
        "== Step 10. Two devices edit offline and converge (Hangar Sync) ==",
        "== Step 11. Page through an index with a cursor ==",
        "== Step 12. Watch a query: the page again when a change alters it ==",
    ]

    /// The engine a run used: what step 9 prints differs.
    enum Engine {
        case sqlite, postgres
    }

    typealias Run = ProcessOutput

    static func run(_ arguments: [String]) throws -> Run {
        try ProcessRunner.run(executable, arguments)
    }

    /// Checks that `run` went through every step and printed what each proves; `exports` is where its files went.
    static func expectCompleteTour(
        _ run: Run, exports: String, engine: Engine = .sqlite, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(run.status == 0, "stderr: \(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.stderr.isEmpty, sourceLocation: sourceLocation)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let found = lines.filter { $0.hasPrefix("== Step") }
        #expect(found == headings, sourceLocation: sourceLocation)
        #expect(!run.stdout.contains("BUG"), sourceLocation: sourceLocation)
        for fact in [
            "Equal to what was saved: yes",
            "Glider          Schleicher ASK 21        SE-UXA  airframe 4297 h, launches: 1362 aerotow, 6071 winch",
            "airframe 18446744073709551615 h",
            "observer: migrated pilots-archive/ada-2019 from 1.0 to 2.0",
            "PoweredAirplane Cessna 172S              SE-KMP  airframe 12400 h, 180 hp, engine 1840 h",
            "Upgraded 4, left newer 0, quarantined 0",
            "\"pilots-archive\" now: 4 at 2.0",
            "Saving with the stale revision",
            "Expected revision",
            "Load refused: pilots/SE-PPL-0314: Not read: major version 3 is newer than this code reads (2); the document is left as it is",
            "Save refused: pilots/SE-PPL-0314: The stored document has major version 3",
            "newer = [\"SE-PPL-0314\"]",
            "Stored document unchanged: revision",
            "In commit order, none missed: yes",
            "Both devices equal the server, both edits kept: yes",
            // Step 11: airframeHours from 3,000 down, two a page, the cursor between; homeAirfieldName by prefix (ESKN).
            "Pilots with an airplane of 3,000 airframe hours or more: 3, most hours first",
            "  page 1: JA-PPL-2231  Mei Tanaka, revision", "  page 1: SE-PPL-0042  ",
            "  page 2: SE-SPL-1187  Jonas Berg",
            "3 pilots on 2 pages, each listed once: yes",
            "Home airfield ESKN, by name (index homeAirfieldName): SE-PPL-0042\n",
            // Step 12: ESKN's page (Ada's home since step 5), then SE-LIVE-0001 added and removed; the save at ESVA
            // gives no page.
            " ESKN: SE-PPL-0042 (the first page)\n", " ESKN: SE-PPL-0042, SE-LIVE-0001 (added SE-LIVE-0001)\n",
            " ESKN: SE-PPL-0042 (removed SE-LIVE-0001)\n",
            "The change at ESVA gave no page; each page as of the change that altered it: yes",
        ] {
            #expect(run.stdout.contains(fact), "missing: \(fact)", sourceLocation: sourceLocation)
        }
        // The follower saw the three commits of step 8, in order, with consecutive sequences.
        let seen = lines.filter { $0.hasPrefix("  follower saw ") }.map { $0.split(separator: " ").map(String.init) }
        #expect(
            seen.map { [$0[3], $0[6]] } == [
                ["pilots/SE-FEED-0001", "save"], ["pilots/SE-FEED-0001", "save"], ["pilots/SE-FEED-0001", "delete"],
            ], sourceLocation: sourceLocation)
        let sequences = seen.compactMap { Int($0[2]) }
        #expect(
            sequences.count == 3 && sequences == Array(sequences[0]...(sequences[0] + 2)),
            sourceLocation: sourceLocation)
        #expect(
            run.stdout.contains("follow(after: \(sequences.last ?? -1))"), sourceLocation: sourceLocation)
        for file in [
            "SE-PPL-0042.plist", "SE-PPL-0042.xml", "pilots-binary/SE-SPL-1187.plist", "pilots-xml/JA-PPL-2231.plist",
        ] {
            #expect(
                FileManager.default.fileExists(atPath: exports + "/" + file), "missing \(file)",
                sourceLocation: sourceLocation)
        }
        expectStepNine(run, exports: exports, engine: engine, sourceLocation: sourceLocation)
    }

    /// Step 9: SQLite checks the file and backs it up; PostgreSQL says which tools do that instead.
    static func expectStepNine(_ run: Run, exports: String, engine: Engine, sourceLocation: SourceLocation) {
        let backup = exports + "/pilots-backup.sqlite"
        switch engine {
        case .sqlite:
            #expect(run.stdout.contains("  Integrity check of the file: ok\n"), sourceLocation: sourceLocation)
            // Ada, Jonas, Mei and the 3.0 pilot of step 7 (step 8's pilot is deleted).
            #expect(run.stdout.contains("opened as a store: 4 pilots\n"), sourceLocation: sourceLocation)
            #expect(FileManager.default.fileExists(atPath: backup), "missing backup", sourceLocation: sourceLocation)
            #expect(!run.stdout.contains("pg_dump"), sourceLocation: sourceLocation)
        case .postgres:
            #expect(
                run.stdout.contains(
                    "  SQLite only; on PostgreSQL: backups: pg_dump; integrity: the server's checks (pg_amcheck); "
                        + "mirror folders: follow the change feed (step 8)\n"), sourceLocation: sourceLocation)
            #expect(!run.stdout.contains("Integrity check"), sourceLocation: sourceLocation)
            #expect(!FileManager.default.fileExists(atPath: backup), sourceLocation: sourceLocation)
        }
    }

    @Test func theTourRunsEveryStepAndCanRunAgain() throws {
        let folder = NSTemporaryDirectory() + "pilots-tour-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = folder + "/store.sqlite"
        let exports = folder + "/exports"

        let first = try Self.run(["--db", store])
        Self.expectCompleteTour(first, exports: exports)
        #expect(first.stdout.contains("(new)"))
        #expect(first.stdout.contains("SE-PPL-0042  revision 1 "))

        let second = try Self.run(["--db", store])
        Self.expectCompleteTour(second, exports: exports)
        #expect(second.stdout.contains("(existing)"))
        // Saved again on the same store: a new revision, not an error.
        #expect(second.stdout.contains("SE-PPL-0042  revision 4 "))

        let fresh = try Self.run(["--db", store, "--fresh"])
        Self.expectCompleteTour(fresh, exports: exports)
        #expect(fresh.stdout.contains("SE-PPL-0042  revision 1 "))
    }

    @Test func aMissingMigrationsFolderIsAnErrorNotACrash() throws {
        let folder = NSTemporaryDirectory() + "pilots-tour-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try Self.run(["--db", folder + "/store.sqlite", "--migrations", folder + "/nowhere"])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("pilots: cannot find Migrations/Pilots/1.0/ada.plist"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/store.sqlite"))
    }

    @Test func freshAndSchemaAreForOneEngineEach() throws {
        // Refused before anything is opened: no server is needed, and none is reached.
        let url = "postgres://nobody@127.0.0.1:1/nothing"
        let fresh = try Self.run(["--url", url, "--fresh"])
        #expect(fresh.status != 0)
        #expect(fresh.stderr.contains("--fresh deletes a SQLite file; on PostgreSQL, pass a new --schema instead."))
        let schema = try Self.run(["--schema", "tour"])
        #expect(schema.status != 0)
        #expect(schema.stderr.contains("--schema names a PostgreSQL schema: use it with --url."))
        let both = try Self.run(["--db", "store.sqlite", "--url", url])
        #expect(both.status != 0)
        #expect(both.stderr.contains("Give --db PATH or --url URL, not both."))
        #expect(!(fresh.stdout + schema.stdout + both.stdout).contains("== Step"))
    }
}
