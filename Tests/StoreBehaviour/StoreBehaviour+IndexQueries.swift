import Foundation
import Hangar
import PropertyList
import Testing

/// Index queries: compound indexes, keyset pages in both orders, cursors, counts and bounds.
extension StoreBehaviour {
    /// The fleet: a compound index (base, then name) and an index of every airplane's hours.
    static func fleetConfiguration(compoundVersion: Int = 1) -> StoreConfiguration {
        var configuration = Self.configuration()
        let components: [IndexDefinition] =
            compoundVersion == 1 ? [.path("base"), .path("name")] : [.path("name"), .path("base")]
        for collection in ["fleet", "fleet2"] {
            configuration.collections[ExactString(collection)] = CollectionOptions(indexes: [
                .compound(name: "baseName", components), .path("airplanes", "hours", name: "hours"),
            ])
        }
        return configuration
    }

    /// Every page of `query`, following the cursors; the keys in order.
    static func allPages(_ query: IndexQuery, in store: Engine, limits: [Int] = [2]) async throws -> [String] {
        var query = query
        var keys: [String] = []
        var turn = 0
        while true {
            query.limit = limits[turn % limits.count]
            turn += 1
            let page = try await store.read { [query] in try await $0.page(query) }
            #expect(page.keys.count <= query.limit)
            keys += page.keys
            guard let next = page.next else { return keys }
            #expect(page.keys.count == query.limit, "a page before the last is full")
            query.after = next
        }
    }

    func compoundIndexOrder() async throws {
        try await withStore(Self.fleetConfiguration()) { store in
            let big = PropertyList.integer(.init(UInt64.max))
            let beyond = PropertyList.integer(.init((UInt64(1) << 63) + 1))
            let documents: [(String, PropertyList)] = [
                ("nfc", fleetPilot(base: "caf\u{E9}", name: "Ann", hours: [5])),
                ("nfd", fleetPilot(base: "cafe\u{301}", name: "Ann", hours: [5.0])),
                ("num", fleetPilot(base: 7, name: "Bob", hours: [big])),
                ("bool", fleetPilot(base: true, name: "Cy", hours: [beyond, -1])),
                ("big", fleetPilot(base: beyond, name: "Di", hours: [])),
                ("bigger", fleetPilot(base: big, name: "Di", hours: [0.5])),
                ("date", fleetPilot(base: .date(10), name: "Ed", hours: [-0.0])),
                ("noName", fleetPilot(base: "ESSB", name: nil, hours: [1])),
                ("arrayName", fleetPilot(base: "ESSB", name: [], hours: [2])),
                ("essbA", fleetPilot(base: "ESSB", name: "A", hours: [3, 30])),
                ("essbNul", fleetPilot(base: "ESSB", name: "A\u{0}", hours: [3])),
                ("essbB", fleetPilot(base: "ESSB", name: "B", hours: [.integer(.init(Int64.min))])),
            ]
            try await store.write { transaction in
                for (key, document) in documents {
                    try await transaction.save(envelope: document, key: key, in: "fleet")
                }
            }
            func keys(_ match: IndexQuery.Match, _ order: IndexQuery.Order = .ascending, index: String = "baseName")
                async throws -> [String]
            {
                try await Self.allPages(
                    IndexQuery(collection: "fleet", index: index, match: match, order: order), in: store,
                    limits: [2, 1, 3])
            }
            // Booleans, then numbers (beyond 2^63 in order), dates, strings by scalars (NFC before NFD: "e" < "é").
            // No entry for a document without a name, or with an empty array as its name.
            let ascending = ["bool", "num", "big", "bigger", "date", "essbA", "essbNul", "essbB", "nfd", "nfc"]
            #expect(try await keys(.all) == ascending, "\(engine)")
            #expect(try await keys(.all, .descending) == ascending.reversed())
            #expect(try await keys(.equal(["caf\u{E9}", "Ann"])) == ["nfc"])
            #expect(try await keys(.equal(["cafe\u{301}", "Ann"])) == ["nfd"])
            #expect(try await keys(.prefix(["ESSB"])) == ["essbA", "essbNul", "essbB"])
            #expect(try await keys(.prefix(["ESSB"]), .descending) == ["essbB", "essbNul", "essbA"])
            #expect(try await keys(.prefix(["ESSB", "A"])) == ["essbA"])
            #expect(try await keys(.prefix([beyond])) == ["big"])
            // Range edges: partial bounds stand for every value that begins with them.
            #expect(try await keys(.range(from: .excluded(["ESSB"]), to: nil)) == ["nfd", "nfc"])
            #expect(
                try await keys(.range(from: .included(["ESSB", "A"]), to: .excluded(["ESSB", "B"]))) == [
                    "essbA", "essbNul",
                ])
            #expect(
                try await keys(.range(from: .excluded(["ESSB", "A"]), to: .included(["ESSB"]))) == ["essbNul", "essbB"])
            #expect(try await keys(.range(from: nil, to: .excluded(["ESSB"]))) == [])
            #expect(try await keys(.range(from: nil, to: .included([beyond]))) == ["num", "big"])
            #expect(try await keys(.range(from: .excluded([7]), to: .included([big]))) == ["big", "bigger"])
            // Every airplane's hours: a document is listed once, at its first value in the query's order.
            #expect(
                try await keys(.all, index: "hours")
                    == [
                        "essbB", "bool", "date", "bigger", "noName", "arrayName", "essbA", "essbNul", "nfc", "nfd",
                        "num",
                    ])
            #expect(
                try await keys(.all, .descending, index: "hours")
                    == [
                        "num", "bool", "essbA", "nfd", "nfc", "essbNul", "arrayName", "noName", "bigger", "date",
                        "essbB",
                    ])
            #expect(
                try await keys(.range(from: .included(3), to: .excluded(31)), index: "hours") == [
                    "essbA", "essbNul", "nfc", "nfd",
                ])
            #expect(
                try await keys(.range(from: .included(3), to: .excluded(31)), .descending, index: "hours") == [
                    "essbA", "nfd", "nfc", "essbNul",
                ])
            let counts = try await store.read { transaction in
                (
                    try await transaction.count(IndexQuery(collection: "fleet", index: "baseName")),
                    try await transaction.count(IndexQuery(collection: "fleet", index: "hours")),
                    try await transaction.count(
                        IndexQuery(collection: "fleet", index: "baseName", match: .prefix(["ESSB"]))),
                    try await transaction.count(
                        IndexQuery(collection: "fleet", index: "hours", match: .range(from: .included(3), to: nil)))
                )
            }
            #expect(counts.0 == 10 && counts.1 == 11 && counts.2 == 3 && counts.3 == 6, "\(counts)")
            let (all, essb, hours, none) = try await store.read { transaction in
                (
                    try await transaction.bounds(IndexQuery(collection: "fleet", index: "baseName")),
                    try await transaction.bounds(
                        IndexQuery(collection: "fleet", index: "baseName", match: .prefix(["ESSB"]))),
                    try await transaction.bounds(IndexQuery(collection: "fleet", index: "hours")),
                    try await transaction.bounds(IndexQuery(collection: "fleet", index: "hours", match: .equal(99)))
                )
            }
            #expect(all?.smallest == [true, "Cy"] && all?.largest == ["caf\u{E9}", "Ann"])
            #expect(essb?.smallest == ["ESSB", "A"] && essb?.largest == ["ESSB", "B"])
            #expect(hours?.smallest == .integer(.init(Int64.min)) && hours?.largest == big)
            #expect(none == nil)
        }
    }

    func keysetPagesAndCursors() async throws {
        try await withStore(Self.fleetConfiguration()) { store in
            try await store.write { transaction in
                for (index, key) in ["a", "b", "c", "d", "e", "f"].enumerated() {
                    try await transaction.save(
                        envelope: fleetPilot(base: "ESSB", name: .string(key), hours: [.integer(.init(index))]),
                        key: key,
                        in: "fleet")
                }
            }
            let query = IndexQuery(
                collection: "fleet", index: "hours", match: .range(from: .included(0), to: nil), limit: 2)
            let first = try await store.read { try await $0.page(query) }
            #expect(first.keys == ["a", "b"] && first.next != nil)
            // The document the cursor follows is deleted, then one before it comes back with a later value, and one
            // after it is deleted: the next page goes on from the cursor's position.
            try await store.write { transaction in
                _ = try await transaction.delete(key: "b", in: "fleet")
                _ = try await transaction.delete(key: "c", in: "fleet")
                try await transaction.save(
                    envelope: fleetPilot(base: "ESSB", name: "a", hours: [9]), key: "a", in: "fleet")
            }
            var second = query
            second.after = first.next
            second.limit = 3
            let page = try await store.read { [second] in try await $0.page(second, documents: true) }
            #expect(page.keys == ["d", "e", "f"], "\(engine)")
            #expect(page.documents.map(\.key) == ["d", "e", "f"] && page.documents.allSatisfy { $0.revision == 1 })
            #expect(page.next != nil)
            var third = second
            third.after = page.next
            let last = try await store.read { [third] in try await $0.page(third) }
            #expect(last.keys == ["a"] && last.next == nil)
            // An exact page: no cursor when nothing follows.
            let exact = try await store.read {
                try await $0.page(IndexQuery(collection: "fleet", index: "hours", limit: 4))
            }
            #expect(exact.keys == ["d", "e", "f", "a"] && exact.next == nil)

            // Cursors of another query, and changed ones, are refused.
            let cursor = try #require(first.next)
            var others: [IndexQuery] = []
            var other = query
            other.order = .descending
            others.append(other)
            other = query
            other.match = .range(from: .included(1), to: nil)
            others.append(other)
            other = query
            other.index = "baseName"
            other.match = .all
            others.append(other)
            other = query
            other.collection = "fleet2"
            others.append(other)
            for var other in others {
                other.after = cursor
                try await expectError(.invalidCursor) {
                    _ = try await store.read { [other] in try await $0.page(other) }
                }
            }
            var text = Array(cursor.text)
            for position in [0, text.count / 2, text.count - 1] {
                var changed = text
                changed[position] = changed[position] == "A" ? "B" : "A"
                var tampered = query
                tampered.after = IndexCursor(String(changed))
                try await expectError(.invalidCursor) {
                    _ = try await store.read { [tampered] in try await $0.page(tampered) }
                }
            }
            text.removeLast(3)
            for bad in [String(text), "", "not a cursor!", "AAAA"] {
                var tampered = query
                tampered.after = IndexCursor(bad)
                try await expectError(.invalidCursor) {
                    _ = try await store.read { [tampered] in try await $0.page(tampered) }
                }
            }
            // Queries the index cannot answer, and an undeclared index.
            for match: IndexQuery.Match in [.prefix(["ESSB"]), .equal(["ESSB"]), .equal(.real(.nan))] {
                try await expectError(.invalidQuery) {
                    _ = try await store.read {
                        try await $0.page(IndexQuery(collection: "fleet", index: "hours", match: match))
                    }
                }
            }
            for match: IndexQuery.Match in [
                .equal(["ESSB"]), .prefix(["ESSB", "a", "x"]), .range(from: .included([[1]]), to: nil),
            ] {
                try await expectError(.invalidQuery) {
                    _ = try await store.read {
                        try await $0.page(IndexQuery(collection: "fleet", index: "baseName", match: match))
                    }
                }
            }
            try await expectError(.invalidQuery) {
                _ = try await store.read {
                    try await $0.page(IndexQuery(collection: "fleet", index: "hours", limit: 0))
                }
            }
            do {
                _ = try await store.read { try await $0.page(IndexQuery(collection: "fleet", index: "nope")) }
                Issue.record("an undeclared index answered")
            } catch let error as HangarError {
                #expect(error.code == .notFound && error.description.contains("baseName, hours"), "\(error)")
            }
        }
    }

    func compoundIndexLifecycle() async throws {
        let store = try await makeStore(Self.fleetConfiguration())
        try await store.write { transaction in
            try await transaction.save(envelope: fleetPilot(base: "B", name: "a", hours: []), key: "k1", in: "fleet")
            try await transaction.save(envelope: fleetPilot(base: "A", name: "b", hours: []), key: "k2", in: "fleet")
        }
        let query = IndexQuery(collection: "fleet", index: "baseName", match: .prefix(["A"]))
        #expect(try await store.read { try await $0.page(query) }.keys == ["k2"])
        // The definition changes (name, then base): the index is rebuilt on open.
        let reopened = try await reopen(store, Self.fleetConfiguration(compoundVersion: 2))
        #expect(try await reopened.read { try await $0.page(query) }.keys.isEmpty, "\(engine)")
        #expect(
            try await reopened.read { try await $0.page(IndexQuery(collection: "fleet", index: "baseName")) }.keys == [
                "k1", "k2",
            ])
        await close(reopened)
        await close(store)
    }
}

/// A pilot of the fleet collection: a base, a name, and airplanes with hours.
func fleetPilot(base: PropertyList?, name: PropertyList?, hours: [PropertyList]) -> PropertyList {
    var content: PropertyList.Dictionary = ["airplanes": .array(hours.map { ["hours": $0] })]
    if let base { content["base"] = base }
    if let name { content["name"] = name }
    return Memo.envelope(major: 1, minor: 0, content)
}
