import Hangar
import HangarTestSupport
import PostgresNIO
import Testing

@testable import HangarPostgres

/// A configuration for the test server with a schema of its own (unique per call), tweaked by `configure`.
func testConfiguration(
    _ label: String, configure: (inout PostgresStoreConfiguration) -> Void = { _ in }
) throws -> PostgresStoreConfiguration {
    // Behind PgBouncer (transaction pooling), the change feed listens on the primary directly.
    var configuration = try PostgresStoreConfiguration(
        url: try TestPostgres.requireURL(), replicas: [], listenURL: TestPostgres.listenURL,
        schema: TestPostgres.uniqueSchemaName(label))
    configuration.poolSize = 4
    configuration.connectTimeout = .seconds(15)
    configure(&configuration)
    return configuration
}

/// Runs `body` with an engine on a fresh schema (created by ``PostgresEngine/prepareSchema()`` when `prepare`),
/// then drops the schema and closes the engine, whether `body` threw or not.
func withTestEngine<Result>(
    _ label: String = #function, prepare: Bool = true,
    configure: (inout PostgresStoreConfiguration) -> Void = { _ in },
    isolation: isolated (any Actor)? = #isolation,
    _ body: (PostgresEngine) async throws -> sending Result
) async throws -> sending Result {
    let engine = try PostgresEngine(configuration: try testConfiguration(label, configure: configure))
    do {
        if prepare { try await engine.prepareSchema() }
        let result = try await body(engine)
        try await dropSchema(of: engine.configuration)
        await engine.close()
        return result
    } catch {
        try? await dropSchema(of: engine.configuration)
        await engine.close()
        throw error
    }
}

/// Drops a test schema and everything in it, through an engine of its own.
func dropSchema(of configuration: PostgresStoreConfiguration) async throws {
    let admin = try PostgresEngine(configuration: configuration)
    do {
        try await admin.withTransaction(.write) { transaction in
            try await transaction.execute("DROP SCHEMA IF EXISTS \(transaction.sql.quotedSchema) CASCADE")
        }
    } catch {
        await admin.close()
        throw error
    }
    await admin.close()
}

/// Binds built from values, for the tests' statements.
func binds(_ values: any PostgresDynamicTypeEncodable...) -> PostgresBindings {
    var bindings = PostgresBindings()
    for value in values { bindings.append(value) }
    return bindings
}

/// Inserts a document row directly (the transactions the lead builds do it through the save rules).
func insertDocument(_ key: String, collection: String = "pilots", in transaction: PostgresTransaction) async throws {
    var bindings = PostgresBindings()
    bindings.append(collection)
    bindings.append(key)
    bindings.append(String?.none)
    bindings.append(Int64(1))
    bindings.append(Int64(0))
    bindings.append(Int64(1))
    bindings.append(1_700_000_000.0)
    bindings.append(PostgresBytes.bind([0x62, 0x70]))
    bindings.append(String?.none)
    try await transaction.execute(transaction.sql.documents.insertDocument, bindings)
}
