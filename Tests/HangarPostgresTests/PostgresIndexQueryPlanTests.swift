import Foundation
import HangarTestSupport
import PostgresNIO
import PropertyList
import Testing

@_spi(Engine) @testable import Hangar
@testable import HangarPostgres

/// Each page of an index query is one index scan of `index_entries`' primary key, forward or backward: no `Sort`,
/// no `Seq Scan`, for equality, prefix and range, in both orders, with a cursor and without (on 40,000 entries,
/// analyzed).
@Suite(.enabled(if: TestPostgres.shouldRun)) struct PostgresIndexQueryPlanTests {
    @Test func everyPageIsOneIndexScanWithNoSort() async throws {
        var store = StoreConfiguration()
        store.collections["fleet"] = CollectionOptions(indexes: [
            .compound(name: "baseName", [.path("base"), .path("name")]), .path("airplanes", "hours", name: "hours"),
        ])
        let configuration = try testConfiguration("indexplans") { $0.store = store }
        let postgres = try await PostgresStore(configuration: configuration)
        do {
            try await postgres.engine.withTransaction(.write) { transaction in
                let table = "\(transaction.sql.quotedSchema).index_entries"
                // Values shaped as the index stores them: a number tag, then bytes; a compound's two components.
                try await transaction.execute(
                    """
                    INSERT INTO \(table) (collection, name, value, key)
                    SELECT 'fleet', 'hours', '\\x2004'::bytea || int4send(i % 50), 'k' || i FROM generate_series(1, 20000) AS i
                    """)
                try await transaction.execute(
                    """
                    INSERT INTO \(table) (collection, name, value, key)
                    SELECT 'fleet', 'baseName', '\\x40'::bytea || int4send(i % 7) || '\\x0000'::bytea, 'k' || i
                    FROM generate_series(1, 20000) AS i
                    """)
                try await transaction.execute("ANALYZE \(table)")
            }
            for (name, query, components) in PlannedQueries.queries() {
                let scan = try IndexScan.plan(query, components: components)
                let position = scan.range.first?.bound ?? [0x20, 3]
                for scan in [scan, scan.with(after: IndexScan.Entry(value: position, key: "k"), limit: 6)] {
                    let plan = try await postgres.engine.withTransaction(.read) { transaction in
                        let (sql, arguments) = scan.statement(table: "\(transaction.sql.quotedSchema).index_entries") {
                            "$\($0)"
                        }
                        var values = PostgresBindings()
                        for argument in arguments {
                            switch argument {
                            case .text(let text): values.append(text)
                            case .blob(let bytes): values.append(ByteBuffer(bytes: bytes))
                            case .integer(let integer): values.append(Int64(integer))
                            }
                        }
                        return try await transaction.query("EXPLAIN " + sql, values).map { try $0.decode(String.self) }
                    }
                    let text = plan.joined(separator: "\n")
                    #expect(!text.contains("Sort") && !text.contains("Seq Scan"), "\(name):\n\(text)")
                    #expect(text.contains("Index Scan") || text.contains("Index Only Scan"), "\(name):\n\(text)")
                    #expect(text.contains("index_entries_pkey on index_entries e"), "\(name):\n\(text)")
                }
            }
        } catch {
            await postgres.close()
            try? await dropSchema(of: configuration)
            throw error
        }
        await postgres.close()
        try await dropSchema(of: configuration)
    }
}
