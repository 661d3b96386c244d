import Foundation
import HangarTestSupport
import PropertyList
import Testing

@_spi(Engine) @testable import Hangar
@testable import HangarSQLite

/// Each page of an index query is one range scan of `index_entries`' primary key, forward or backward: no sort
/// step (`USE TEMP B-TREE`), no full scan (`SCAN`), for equality, prefix and range, in both orders, with a cursor
/// and without.
@Suite struct SQLiteIndexQueryPlanTests {
    /// The scans of a query's first page and of a page after a cursor.
    static func scans(_ query: IndexQuery, components: Int?) throws -> [IndexScan] {
        let scan = try IndexScan.plan(query, components: components)
        let position = scan.range.first?.bound ?? [0x20, 3]
        return [scan, scan.with(after: IndexScan.Entry(value: position, key: "k"), limit: 6)]
    }

    @Test func everyPageIsOneRangeScanWithNoSort() throws {
        let path = try temporaryDirectory() + "/store.sqlite"
        var configuration = StoreConfiguration()
        configuration.collections["fleet"] = CollectionOptions(indexes: [
            .compound(name: "baseName", [.path("base"), .path("name")]), .path("airplanes", "hours", name: "hours"),
        ])
        let store = try SQLiteStore(path: path, store: configuration)
        try store.write { transaction in
            for index in 0..<200 {
                try transaction.save(
                    envelope: [
                        "majorVersion": 1, "minorVersion": 0, "base": index % 2 == 0 ? "ESSB" : "ESSA",
                        "name": .string("n\(index)"), "airplanes": [["hours": .integer(.init(index % 17))]],
                    ], key: "k\(index)", in: "fleet")
            }
        }
        let raw = try SQLiteConnection(path: path, mode: .readOnly, busyTimeout: 1_000)
        for (name, query, components) in PlannedQueries.queries() {
            // In one owner's scope too: each entry's owner record is one lookup of the owners index's entry.
            var owned = query
            owned.owner = "u1"
            for (name, query) in [(name, query), (name + ", u1's", owned)] {
                for scan in try Self.scans(query, components: components) {
                    let details = try Self.plan(of: scan, on: raw)
                    let searches = details.filter { $0.hasPrefix("SEARCH e USING PRIMARY KEY") }
                    #expect(searches.count == 1, "\(name): \(details)")
                    #expect(
                        !details.contains { $0.hasPrefix("SCAN") || $0.contains("TEMP B-TREE") }, "\(name): \(details)")
                    #expect(
                        !details.contains { $0.hasPrefix("SEARCH f") && !$0.contains("=?") }, "\(name): \(details)")
                    #expect(
                        query.owner == nil
                            || details.contains { detail in
                                detail.hasPrefix("SEARCH o USING")
                                    && ["collection=?", "name=?", "value=?", "key=?"].allSatisfy(detail.contains)
                            }, "\(name): \(details)")
                }
            }
        }
    }

    /// A user's page of a collection (``DocumentReader/ownedKeys(in:owner:limit:offset:)``) is one range scan of
    /// the owners index (by owner, then key) and one primary-key lookup of each entry's document: no full scan of
    /// the collection or of the owners, no sort, with an offset and without.
    @Test func aUsersPageIsOneRangeScanOfTheOwnersIndex() async throws {
        let path = try temporaryDirectory() + "/store.sqlite"
        let store = try SQLiteStore(path: path, store: StoreConfiguration())
        try await store.write { transaction in
            for index in 0..<300 {
                let key = "k\(index)"
                try await transaction.save(envelope: ["majorVersion": 1, "minorVersion": 0], key: key, in: "fleet")
                try await transaction.save(
                    envelope: ["majorVersion": 1, "minorVersion": 0, "user": .string("u\(index % 3)")],
                    key: "fleet/" + key, in: DocumentOwners.collection)
            }
        }
        let owned = (0..<300).filter { $0 % 3 == 1 }.map { "k\($0)" }.sorted {
            $0.utf8.lexicographicallyPrecedes($1.utf8)
        }
        let page = try await Self.ownedPage(of: store)
        #expect(page?.keys == Array(owned[5..<10]) && page?.more == true, "\(String(describing: page))")
        let raw = try SQLiteConnection(path: path, mode: .readOnly, busyTimeout: 1_000)
        for offset in [0, 40] {
            let details = try Self.plan(
                of: try IndexScan.owned(in: "fleet", by: "u1", limit: 20, offset: offset), on: raw)
            #expect(
                details.contains {
                    $0.hasPrefix("SEARCH e USING PRIMARY KEY (collection=? AND name=? AND value=? AND key>")
                }, "\(details)")
            #expect(
                details.contains { $0.hasPrefix("SEARCH d USING") && $0.contains("(collection=? AND key=?)") },
                "\(details)")
            #expect(!details.contains { $0.hasPrefix("SCAN") || $0.contains("TEMP B-TREE") }, "\(details)")
        }
    }

    /// u1's second page of five keys of `fleet`.
    static func ownedPage(of store: some DocumentStore) async throws -> (keys: [String], more: Bool)? {
        try await store.read { try await $0.ownedKeys(in: "fleet", owner: "u1", limit: 5, offset: 5) }
    }

    /// The details of SQLite's plan of `scan`.
    static func plan(of scan: IndexScan, on raw: SQLiteConnection) throws -> [String] {
        let (sql, arguments) = scan.statement(table: "index_entries") { "?\($0)" }
        let plan = try raw.cachedStatement("EXPLAIN QUERY PLAN " + sql)
        defer { plan.reset() }
        for (index, argument) in arguments.enumerated() {
            let value: SQLiteValue =
                switch argument {
                case .text(let text): .text(text)
                case .blob(let bytes): .blob(bytes)
                case .integer(let integer): .integer(Int64(integer))
                }
            try plan.bind(value, at: Int32(index + 1))
        }
        var details: [String] = []
        while try plan.step() { details.append(plan.text(at: 3)) }
        return details
    }
}
