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
            for scan in try Self.scans(query, components: components) {
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
                let searches = details.filter { $0.hasPrefix("SEARCH e USING PRIMARY KEY") }
                #expect(searches.count == 1, "\(name): \(details)")
                #expect(!details.contains { $0.hasPrefix("SCAN") || $0.contains("TEMP B-TREE") }, "\(name): \(details)")
                #expect(!details.contains { $0.hasPrefix("SEARCH f") && !$0.contains("=?") }, "\(name): \(details)")
            }
        }
    }
}
