import Foundation
import HangarTestSupport
import Testing

/// Hangar Studio in a real browser against a real `hangar studio` process on a real store. One at a time: each
/// starts chromium, and the live-feed test measures a delay. Without chromium, chromedriver or selenium every test
/// is skipped, saying so (`.browser`); under `HANGAR_REQUIRE_BROWSER=1` each fails instead.
@Suite(.serialized, .browser) struct StudioBrowserTests {
    /// A folder with the sample store (``StudioStores/makeSQLite(at:hostile:)``) as `store.sqlite`.
    static func sampleStore(hostile: Bool = false) async throws -> (folder: String, path: String) {
        let folder = try ScratchFolders.make("studio")
        let path = folder + "/store.sqlite"
        try await StudioStores.makeSQLite(at: path, hostile: hostile)
        return (folder, path)
    }

    @Test func everyPageLoadsWithoutAConsoleErrorAndTheChartShowsTheStoresCounts() async throws {
        try Browser.require()
        let (_, path) = try await Self.sampleStore()
        let studio = try StudioProcess(["--db", path])
        try Browser.run("pages", studio, shots: "pages", expect: StudioStores.expectedPages)
        #expect(studio.stop() == 0)
    }

    @Test func aDiffShowsExactlyTheChangedPaths() async throws {
        try Browser.require()
        let (_, path) = try await Self.sampleStore()
        let studio = try StudioProcess(["--db", path])
        let paths: [[Any]] = [
            [[["key": "extra"]], "added"], [[["key": "n"]], "removed"],
            [[["key": "tags"], ["index": 0]], "changed"], [[["key": "title"]], "changed"],
        ]
        try Browser.run(
            "diff", studio, shots: "diff",
            expect: ["collection": "notes", "document": "b1", "a": 1, "b": 3, "paths": paths])
        #expect(studio.stop() == 0)
    }

    @Test func restoreEditAndDeleteWorkWithWriteAndAreRefusedReadOnly() async throws {
        try Browser.require()
        let (_, path) = try await Self.sampleStore()
        let expect: [String: Any] = ["collection": "notes", "document": "b1", "revision": 1]
        let readOnly = try StudioProcess(["--db", path])
        try Browser.run("readonly", readOnly, shots: "read-only", expect: expect)
        #expect(readOnly.stop() == 0)
        let writable = try StudioProcess(["--db", path, "--write"])
        try Browser.run("restore", writable, shots: "restore", expect: expect)
        #expect(writable.stop() == 0)
        let history = try ProcessRunner.run(StudioProcess.executable, ["db", "history", "--db", path, "notes", "b1"])
        // 3 saves, the restore, the edit; the delete keeps the last revision in history.
        #expect(history.stdout.split(separator: "\n").count == 5, "\(history.stdout)")
        let removed = try ProcessRunner.run(StudioProcess.executable, ["db", "get", "--db", path, "notes", "b1"])
        #expect(removed.status == 1)
    }

    @Test func theLiveFeedShowsASaveByAnotherProcessWithinASecond() async throws {
        try Browser.require()
        let (folder, path) = try await Self.sampleStore()
        let file = folder + "/new.plist"
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>majorVersion</key><integer>2</integer>\
            <key>minorVersion</key><integer>0</integer><key>title</key><string>live</string></dict></plist>
            """.utf8
        ).write(to: URL(fileURLWithPath: file))
        let studio = try StudioProcess(["--db", path])
        try Browser.run(
            "live", studio, shots: "live",
            expect: ["collection": "notes", "key": "from-another-process", "file": file],
            extra: ["--hangar", StudioProcess.executable, "--db", path])
        #expect(studio.stop() == 0)
    }

    @Test func hostileContentIsShownAsTextAndNeverRun() async throws {
        try Browser.require()
        let (_, path) = try await Self.sampleStore(hostile: true)
        let studio = try StudioProcess(["--db", path])
        try Browser.run(
            "hostile", studio, shots: "hostile",
            expect: ["collection": "notes", "key": StudioStores.hostileKey, "value": StudioStores.hostileValue])
        #expect(studio.stop() == 0)
    }
}
