import Foundation
import Hangar
import HangarTestSupport
import PostgresNIO
import Testing

@testable import HangarPostgres

/// Creating and upgrading the schema, against the real server.
@Suite(.enabled(if: TestPostgres.shouldRun)) struct PostgresSchemaTests {
    @Test func fiveClientsOpeningOneEmptySchemaAtOnceCreateItOnceWithoutError() async throws {
        let configuration = try testConfiguration("concurrentcreate")
        let engines = try (0..<5).map { _ in try PostgresEngine(configuration: configuration) }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for engine in engines {
                    group.addTask { try await engine.prepareSchema() }
                }
                try await group.waitForAll()
            }
            let check = engines[0]
            try await check.withTransaction(.read) { transaction in
                let sql = transaction.sql
                #expect(try await transaction.scalar(sql.schemaVersion, as: Int64.self) == sql.currentVersion)
                let counterRows = try await transaction.scalar(
                    "SELECT count(*) FROM \(sql.quotedSchema).change_counter", as: Int64.self)
                #expect(counterRows == 1)
                let tables = try await transaction.scalar(
                    "SELECT count(*) FROM pg_tables WHERE schemaname = $1", binds(sql.schema), as: Int64.self)
                // 8 since schema 1; pending_changes since schema 3.
                #expect(tables == 9)
            }
        } catch {
            try? await dropSchema(of: configuration)
            for engine in engines { await engine.close() }
            throw error
        }
        try await dropSchema(of: configuration)
        for engine in engines { await engine.close() }
    }

    @Test func preparingAnUpToDateSchemaAgainChangesNothing() async throws {
        try await withTestEngine { engine in
            try await engine.prepareSchema()
            #expect(try await engine.existingSchemaVersion() == engine.sql.currentVersion)
        }
    }

    @Test func aSchemaWrittenByANewerHangarIsRefusedAndLeftAsItIs() async throws {
        try await withTestEngine { engine in
            let sql = engine.sql
            try await engine.withTransaction(.write) { transaction in
                try await insertDocument("ada", in: transaction)
                try await transaction.execute(sql.setSchemaVersion, binds(sql.currentVersion + 1))
            }
            let newer = try PostgresEngine(configuration: engine.configuration)
            do {
                try await newer.prepareSchema()
                Issue.record("a newer schema was opened")
            } catch let error as HangarError {
                #expect(error.code == .newerSchema)
            }
            await newer.close()
            try await engine.withTransaction(.read) { transaction in
                #expect(try await transaction.scalar(sql.schemaVersion, as: Int64.self) == sql.currentVersion + 1)
                let count = try await transaction.scalar(sql.documents.countDocuments, binds("pilots"), as: Int64.self)
                #expect(count == 1)
            }
        }
    }

    @Test func keysAreOrderedBytewise() async throws {
        try await withTestEngine { engine in
            try await engine.withTransaction(.write) { transaction in
                for key in ["b", "B", "a", "é", "Z", "_"] { try await insertDocument(key, in: transaction) }
            }
            let keys = try await engine.withTransaction(.read) { transaction in
                try await transaction.query(transaction.sql.documents.keys, binds("pilots")).map {
                    try $0.decode(String.self)
                }
            }
            #expect(keys == ["B", "Z", "_", "a", "b", "é"])
        }
    }
}

/// Real processes: what several instances of an app do when they start together on a new database.
@Suite(.enabled(if: TestPostgres.shouldRun)) struct PostgresSchemaProcessTests {
    @Test func fiveProcessesOpeningOneEmptyDatabaseAtOnceCreateItOnceWithoutError() async throws {
        let configuration = try testConfiguration("processes")
        let executable = try #require(ProcessRunner.builtExecutable(named: "hangar-postgres-open"))
        var processes: [(Process, Pipe, Pipe)] = []
        for _ in 0..<5 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = [try TestPostgres.requireURL(), configuration.schema]
            let (out, err) = (Pipe(), Pipe())
            process.standardOutput = out
            process.standardError = err
            processes.append((process, out, err))
        }
        // All started before any is waited for: they race for the empty database.
        for (process, _, _) in processes { try process.run() }
        var outputs: [String] = []
        for (process, out, err) in processes {
            let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(errors)")
            outputs.append(output)
        }
        let engine = try PostgresEngine(configuration: configuration)
        let version = try await engine.existingSchemaVersion()
        await engine.close()
        try await dropSchema(of: configuration)
        #expect(outputs.allSatisfy { $0 == "opened \(version ?? -1)\n" })
        #expect(version == PostgresStoreSQL(schema: configuration.schema).currentVersion)
    }
}
