import Foundation
import Hangar
import HangarPostgres
import HangarSQLite
import HangarTestSupport
import PropertyList
import Testing

/// `hangar db find` through the real binary, on stores an app built its indexes in: the CLI has none of the app's
/// definitions and reads the indexes as the store recorded them.
@Suite struct DBFindTests {
    /// The app's indexes over `fleet`: a compound one (base, then name) and one over every airplane's hours.
    static var configuration: StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.collections["fleet"] = CollectionOptions(indexes: [
            .compound(name: "baseName", [.path("base"), .path("name")]), .path("airplanes", "hours", name: "hours"),
        ])
        return configuration
    }

    /// Ten plain documents, then four with odd keys (a space, a tab, and an NFC/NFD pair), all at base ESSX.
    static let oddKeys = ["two words", "tab\tkey", "caf\u{E9}", "cafe\u{301}"]

    static func seed(_ store: some DocumentStore) async throws {
        for number in 0..<10 {
            let document: PropertyList = [
                "majorVersion": 1, "minorVersion": 0, "base": number % 2 == 0 ? "ESSB" : "ESSA",
                "name": .string("n\(number)"),
                "airplanes": [["hours": .integer(.init(number))], ["hours": .integer(.init(number + 100))]],
            ]
            _ = try await store.save(envelope: document, key: "k\(number)", in: "fleet")
        }
        _ = try await store.save(
            envelope: ["majorVersion": 1, "minorVersion": 0, "base": "ESSB", "name": "n0"], key: "k0", in: "fleet")
        for (number, key) in oddKeys.enumerated() {
            let document: PropertyList = [
                "majorVersion": 1, "minorVersion": 0, "base": "ESSX", "name": .string("odd\(number)"),
            ]
            _ = try await store.save(envelope: document, key: key, in: "fleet")
        }
    }

    /// Runs `hangar db find` on `store` (`--db PATH` or `--url URL`) with `arguments`.
    static func find(_ store: [String], _ arguments: [String]) throws -> CLI.Result {
        try CLI.run(["db", "find"] + store + ["fleet"] + arguments)
    }

    /// Every page of a query, `limit` at a time, following the cursors: the lines without the `next:` ones.
    static func allPages(_ store: [String], _ arguments: [String], limit: Int) throws -> [String] {
        var lines: [String] = []
        var after: [String] = []
        for _ in 0..<100 {
            let result = try find(store, arguments + ["--limit", "\(limit)"] + after)
            #expect(result.status == 0, "\(result.stderr)")
            var page = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(page.popLast() == "")
            guard let last = page.last, last.hasPrefix("next: ") else { return lines + page }
            #expect(page.count == limit + 1)
            lines += page.dropLast()
            after = ["--after", String(last.dropFirst("next: ".count))]
        }
        Issue.record("The pages did not end")
        return lines
    }

    /// What every engine's store answers: equality, prefix, range, both orders, paging, counts, odd keys and
    /// refused cursors.
    static func checkQueries(_ store: [String]) throws {
        // A value that is JSON, and the same text unquoted: the string.
        for value in ["ESSB", "\"ESSB\""] {
            let result = try find(store, ["--index", "baseName", "--prefix", value])
            #expect(result.stdout == "k0 2\nk2 1\nk4 1\nk6 1\nk8 1\n", "\(result.stderr)")
        }
        #expect(try find(store, ["--index", "baseName", "--value", #"["ESSA", "n3"]"#]).stdout == "k3 1\n")
        #expect(try find(store, ["--index", "hours", "--value", "7"]).stdout == "k7 1\n")
        #expect(try find(store, ["--index", "hours", "--value", "\"7\""]).stdout == "")
        // Every airplane's hours: a document with several values in the range is listed once, at its first.
        let range = ["--index", "hours", "--from", "3", "--to", "104"]
        let ascending = ["k3 1", "k4 1", "k5 1", "k6 1", "k7 1", "k8 1", "k9 1", "k1 1", "k2 1"]
        #expect(try allPages(store, range, limit: 2) == ascending)
        #expect(
            try allPages(store, range + ["--order", "desc"], limit: 4) == ["k4 1", "k3 1", "k2 1", "k1 1"]
                + ["k9 1", "k8 1", "k7 1", "k6 1", "k5 1"])
        #expect(try find(store, range + ["--count"]).stdout == "9\n")
        #expect(try find(store, ["--index", "baseName", "--count"]).stdout == "14\n")
        // Odd keys print quoted and escaped, the NFC/NFD twins apart; the composed one stays as it is.
        let odd = try find(store, ["--index", "baseName", "--prefix", "ESSX"]).stdout
        #expect(odd == "\"two words\" 1\n\"tab\\tkey\" 1\ncaf\u{E9} 1\n\"cafe\\u{301}\" 1\n", "\(odd)")
        let listed = try CLI.run(["db", "ls"] + store + ["fleet"]).stdout.split(separator: "\n")
        #expect(listed.contains("\"cafe\\u{301}\"") && listed.contains("caf\u{E9}"), "\(listed)")
        try checkRefusedCursors(store)
    }

    /// A cursor edited, or used with another index, order or range: exit 1 and one line on standard error.
    static func checkRefusedCursors(_ store: [String]) throws {
        let first = try find(store, ["--index", "hours", "--from", "1", "--limit", "2"]).stdout
        guard let line = first.split(separator: "\n").last, line.hasPrefix("next: ") else {
            Issue.record("No cursor in \(first)")
            return
        }
        let cursor = String(line.dropFirst("next: ".count))
        let edited = String(cursor.dropLast()) + (cursor.hasSuffix("A") ? "B" : "A")
        let misuses: [[String]] = [
            ["--index", "hours", "--from", "1", "--after", edited],
            ["--index", "hours", "--from", "1", "--order", "desc", "--after", cursor],
            ["--index", "hours", "--from", "2", "--after", cursor],
            ["--index", "baseName", "--after", cursor],
            ["--index", "hours", "--from", "1", "--after", "not a cursor"],
        ]
        for arguments in misuses {
            let result = try find(store, arguments)
            #expect(result.status == 1, "\(arguments): \(result.stdout)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("cursor"), "\(result.stderr)")
        }
        // The same query with another limit takes the cursor.
        let next = try find(store, ["--index", "hours", "--from", "1", "--limit", "3", "--after", cursor])
        #expect(next.status == 0 && next.stdout.hasPrefix("k3 1\nk4 1\nk5 1\nnext: "), "\(next.stderr)")
    }

    @Test func findPagesThroughAnIndexOfASQLiteStore() async throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let path = directory + "/fleet.sqlite"
        let store = try SQLiteStore(path: path, store: Self.configuration)
        try await Self.seed(store)
        await store.close()
        try Self.checkQueries(["--db", path])
        // An unknown index names the built ones; a bad value for the index is one line too.
        let unknown = try Self.find(["--db", path], ["--index", "nope"])
        #expect(unknown.status == 1 && unknown.stderr.contains("baseName, hours"), "\(unknown.stderr)")
        let wrong = try Self.find(["--db", path], ["--index", "baseName", "--prefix", #"[1, 2, 3]"#])
        #expect(wrong.status == 1 && wrong.stderr.split(separator: "\n").count == 1, "\(wrong.stderr)")
        let both = try Self.find(["--db", path], ["--index", "hours", "--value", "1", "--from", "2"])
        #expect(both.status != 0 && both.stdout.isEmpty)
    }

    @Test(.enabled(if: TestPostgres.shouldRun)) func findPagesThroughAnIndexOfAPostgresStore() async throws {
        let url = try TestPostgres.requireURL() + "?schema=" + TestPostgres.uniqueSchemaName("clifind")
        let store = try await PostgresStore(
            configuration: try PostgresStoreConfiguration(url: url, store: Self.configuration))
        try await Self.seed(store)
        await store.close()
        try Self.checkQueries(["--url", url])
    }
}
