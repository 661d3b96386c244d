import Foundation
import HangarTestSupport
import Testing

/// `pilots-server --auth-key FILE` on PostgreSQL: the tests of ``PilotsAuthTests`` (tokens on every route but
/// `/health`, two users each scoped to their own documents on REST, the change stream, sync and `hangar db sync
/// --token-file`, the idempotent `PUT`) with the server's store in a schema of its own on the test server. One
/// at a time: each server holds a pool of connections, and the test server's are shared with every other suite.
@Suite(.enabled(if: TestPostgres.shouldRun), .serialized) struct PilotsAuthPostgresTests {
    let tests: PilotsAuthTests

    init() throws {
        tests = PilotsAuthTests(
            directory: try TemporaryDirectory(),
            storeArguments: ["--url", try TestPostgres.requireURL(), "--schema", TestPostgres.uniqueSchemaName("auth")])
    }

    @Test func everyRouteButHealthNeedsAValidToken() async throws {
        try await tests.everyRouteButHealthNeedsAValidToken()
    }

    @Test func twoUsersSeeOnlyTheirOwnDocumentsOnEveryRoute() async throws {
        try await tests.twoUsersSeeOnlyTheirOwnDocumentsOnEveryRoute()
    }

    @Test func theCommandSyncsOnlyTheTokensUser() async throws {
        try await tests.theCommandSyncsOnlyTheTokensUser()
    }

    @Test func anIdempotentPutRetriedGetsItsOriginalAnswerAndOneRevision() async throws {
        try await tests.anIdempotentPutRetriedGetsItsOriginalAnswerAndOneRevision()
    }
}
