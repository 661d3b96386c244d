import Foundation
import Hangar
import HangarTestSupport
import StoreBehaviour
import Synchronization
import Testing

@testable import HangarPostgres

/// The behavioural suite every engine passes (the SQLite store's is `SQLiteBehaviourTests`), on the PostgreSQL
/// store: each behaviour in a schema of its own, a second instance being a second `PostgresStore` on it. Each runs
/// twice: with saves and deletes in one statement (`write_document`) and statement by statement, so the function
/// and the Swift rules it mirrors are held to the same behaviour.
@Suite(.enabled(if: TestPostgres.shouldRun)) struct PostgresBehaviourTests {
    @Test(arguments: Behaviour.allCases, [true, false])
    func behaves(_ behaviour: Behaviour, oneStatement: Bool) async throws {
        let schemas = Mutex<[PostgresStoreConfiguration]>([])
        let suite = StoreBehaviour<PostgresStore>(
            engine: "postgres",
            makeStore: { configuration in
                let postgres = try testConfiguration(behaviour.rawValue) {
                    $0.store = configuration
                    $0.writesPlansInOneStatement = oneStatement
                }
                schemas.withLock { $0.append(postgres) }
                return try await PostgresStore(configuration: postgres)
            },
            reopen: { store, configuration in
                var postgres = store.postgresConfiguration
                postgres.store = configuration
                return try await PostgresStore(configuration: postgres)
            })
        do {
            try await suite.check(behaviour)
        } catch {
            for schema in schemas.withLock({ $0 }) { try? await dropSchema(of: schema) }
            throw error
        }
        for schema in schemas.withLock({ $0 }) { try await dropSchema(of: schema) }
    }
}
