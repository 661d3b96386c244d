import Foundation
import HangarTestSupport
import Testing

/// Runs the built `pilots` executable with `--url`, on a schema of its own on the test server
/// (`Scripts/with-postgres.sh swift test`; skipped, loudly, without one), and checks the same output as on SQLite.
@Suite(.enabled(if: TestPostgres.shouldRun)) struct PilotsTourPostgresTests {
    @Test func theTourRunsEveryStepOnPostgreSQLAndCanRunAgain() throws {
        let server = try TestPostgres.requireURL()
        let schema = TestPostgres.uniqueSchemaName("pilotstour")
        let url = server + "?schema=" + schema
        let folder = NSTemporaryDirectory() + "pilots-tour-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let exports = folder + "/exports"

        let first = try PilotsTourTests.run(["--url", url, "--exports", exports])
        PilotsTourTests.expectCompleteTour(first, exports: exports, engine: .postgres)
        #expect(first.stdout.contains("Store: PostgreSQL "))
        #expect(first.stdout.contains(", schema \(schema) (new)\n"))
        #expect(first.stdout.contains("SE-PPL-0042  revision 1 "))
        // The URL's password is never printed.
        let password = try #require(URLComponents(string: server)?.password)
        #expect(!first.stdout.contains(":\(password)@"))

        let second = try PilotsTourTests.run(["--url", url, "--exports", exports])
        PilotsTourTests.expectCompleteTour(second, exports: exports, engine: .postgres)
        #expect(second.stdout.contains(", schema \(schema) (existing)\n"))
        // Saved again in the same schema: a new revision, not an error.
        #expect(second.stdout.contains("SE-PPL-0042  revision 4 "))

        // --schema overrides the URL's: another schema starts from nothing.
        let other = schema + "_b"
        let third = try PilotsTourTests.run(["--url", url, "--schema", other, "--exports", exports])
        PilotsTourTests.expectCompleteTour(third, exports: exports, engine: .postgres)
        #expect(third.stdout.contains(", schema \(other) (new)\n"))
        #expect(third.stdout.contains("SE-PPL-0042  revision 1 "))
    }

}
