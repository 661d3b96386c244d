import Hangar
import Testing

@testable import HangarPostgres
@testable import PostgresNIO

/// The one mapping of PostgreSQL failures to Hangar errors, on errors made here (no server needed): decided by
/// SQLSTATE and postgres-nio's code, and by the phase a lost connection happened in.
@Suite struct PostgresErrorMappingTests {
    static func server(_ state: String, message: String = "text from the server") -> PSQLError {
        PSQLError.server(PostgresBackendMessage.ErrorResponse(fields: [.sqlState: state, .message: message]))
    }

    @Test func aConnectionLostDuringCommitIsOutcomeUnknownAndBeforeItConnectionLost() {
        let closed = PSQLError.serverClosedConnection(underlying: nil)
        #expect(HangarError.postgres(closed, sql: "COMMIT", phase: .commit).code == .outcomeUnknown)
        #expect(HangarError.postgres(closed, sql: "SELECT 1", phase: .statement).code == .connectionLost)
        #expect(HangarError.postgres(closed, sql: nil, phase: .connecting).code == .connectionLost)
        #expect(!HangarError.Code.outcomeUnknown.isRetryable)
        #expect(HangarError.Code.connectionLost.isRetryable)
    }

    @Test(arguments: ["40001", "40P01", "23505"])
    func aLossToAConcurrentTransactionIsARetryableSerializationFailure(state: String) {
        for phase in [PostgresPhase.statement, .commit] {
            let error = HangarError.postgres(Self.server(state), sql: "COMMIT", phase: phase)
            #expect(error.code == .serializationFailure)
            #expect(error.sqlState == state)
            #expect(error.code.isRetryable)
        }
    }

    @Test(arguments: ["57014", "55P03", "25P03"])
    func timeoutsAreTimeouts(state: String) {
        #expect(HangarError.postgres(Self.server(state), sql: "SELECT 1", phase: .statement).code == .timeout)
    }

    @Test(arguments: ["57P01", "57P02", "57P03", "53300", "08006"])
    func aServerEndingTheSessionIsALostConnection(state: String) {
        #expect(HangarError.postgres(Self.server(state), sql: "SELECT 1", phase: .statement).code == .connectionLost)
        #expect(HangarError.postgres(Self.server(state), sql: "COMMIT", phase: .commit).code == .outcomeUnknown)
    }

    @Test func otherServerErrorsAreDatabaseErrorsThatNeverQuoteValues() {
        let syntax = HangarError.postgres(
            Self.server("42601", message: "syntax error"), sql: "SELEC", phase: .statement)
        #expect(syntax.code == .database)
        #expect(syntax.description.contains("syntax error"))
        #expect(syntax.description.contains("42601"))
        let data = HangarError.postgres(
            Self.server("22P02", message: "invalid input syntax: \"secret\""), sql: "SELECT $1", phase: .statement)
        #expect(data.code == .database)
        #expect(!data.description.contains("secret"))
    }

    @Test func aFailureOutsidePostgresNIOWhileConnectingIsALostConnection() {
        struct NetworkDown: Error {}
        #expect(HangarError.postgres(NetworkDown(), sql: nil, phase: .connecting).code == .connectionLost)
    }
}
