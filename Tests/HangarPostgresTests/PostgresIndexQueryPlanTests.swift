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
                // u1 owns a third of them (the owners index's entries of `fleet/KEY`).
                var owner = PostgresBindings()
                owner.append(ByteBuffer(bytes: IndexValue.encoded(.string("u1")) ?? []))
                _ = try await transaction.query(
                    """
                    INSERT INTO \(table) (collection, name, value, key)
                    SELECT '_sync.owners', 'owner', $1, 'fleet/k' || i FROM generate_series(1, 20000) AS i WHERE i % 3 = 1
                    """, owner)
                try await transaction.execute("ANALYZE \(table)")
            }
            // Each query in the open scope and in u1's: each entry's owner record one lookup of the primary key.
            let queries = PlannedQueries.queries().flatMap { name, query, components in
                var owned = query
                owned.owner = "u1"
                return [(name, query, components), (name + ", u1's", owned, components)]
            }
            for (name, query, components) in queries {
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
                    #expect(
                        query.owner == nil || text.contains(" on index_entries o"),
                        "\(name):\n\(text)")
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

    /// A user's page of a collection (``DocumentReader/ownedKeys(in:owner:limit:offset:)``) is one index scan of
    /// the owners index (by owner, then key) and a primary-key lookup of each entry's document: no `Seq Scan`, no
    /// `Sort` (on 20,000 documents of three owners, analyzed).
    @Test func aUsersPageIsOneIndexScanOfTheOwnersIndex() async throws {
        let configuration = try testConfiguration("ownerplans") { _ in }
        let postgres = try await PostgresStore(configuration: configuration)
        do {
            let owners = (0..<3).map { IndexValue.encoded(.string("u\($0)")) ?? [] }
            try await postgres.engine.withTransaction(.write) { transaction in
                let s = transaction.sql.quotedSchema
                try await transaction.execute(
                    """
                    INSERT INTO \(s).documents (collection, key, major, minor, revision, created_at, updated_at, body)
                    SELECT 'fleet', 'k' || i, 1, 0, 1, 0, 0, '\\x00'::bytea FROM generate_series(1, 20000) AS i
                    """)
                let hex = owners.map { "'\\x" + $0.map { String(format: "%02x", $0) }.joined() + "'::bytea" }
                try await transaction.execute(
                    """
                    INSERT INTO \(s).index_entries (collection, name, value, key)
                    SELECT '\(DocumentOwners.collection)', 'owner',
                    CASE i % 3 WHEN 0 THEN \(hex[0]) WHEN 1 THEN \(hex[1]) ELSE \(hex[2]) END, 'fleet/k' || i
                    FROM generate_series(1, 20000) AS i
                    """)
                try await transaction.execute("ANALYZE \(s).documents")
                try await transaction.execute("ANALYZE \(s).index_entries")
            }
            let page = try await postgres.read { try await $0.ownedKeys(in: "fleet", owner: "u1", limit: 3, offset: 2) }
            let owned = (1...20000).filter { $0 % 3 == 1 }.map { "k\($0)" }.sorted {
                $0.utf8.lexicographicallyPrecedes($1.utf8)
            }
            #expect(page?.keys == Array(owned[2..<5]) && page?.more == true, "\(String(describing: page))")
            for offset in [0, 40] {
                let scan = try IndexScan.owned(in: "fleet", by: "u1", limit: 20, offset: offset)
                let plan = try await postgres.engine.withTransaction(.read) { transaction in
                    let s = transaction.sql.quotedSchema
                    let (sql, arguments) = scan.statement(table: "\(s).index_entries", documents: "\(s).documents") {
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
                #expect(!text.contains("Sort") && !text.contains("Seq Scan"), "\(text)")
                #expect(text.contains("index_entries_pkey on index_entries e"), "\(text)")
                #expect(text.contains("documents_pkey on documents d"), "\(text)")
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
