// hangar-postgres-open URL SCHEMA: opens (creates or upgrades) the store's schema on a PostgreSQL server, as
// every process of an app does when it starts, and prints `opened` and the schema version. For the tests that
// start several at once on one empty database. Exits 1, with the error on standard error, when it cannot.
import Foundation
import HangarPostgres

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: hangar-postgres-open URL SCHEMA\n".utf8))
    exit(64)
}
do {
    let engine = try PostgresEngine(
        configuration: try PostgresStoreConfiguration(url: arguments[1], schema: arguments[2]))
    do {
        try await engine.prepareSchema()
        let version = try await engine.existingSchemaVersion()
        print("opened \(version ?? 0)")
    } catch {
        await engine.close()
        throw error
    }
    await engine.close()
} catch {
    FileHandle.standardError.write(Data("hangar-postgres-open: \(error)\n".utf8))
    exit(1)
}
