import Foundation
import Hangar
import PropertyList
import Testing

/// The owners index every store keeps (``Hangar/DocumentOwners``): one user's keys of a collection, a page at a time.
extension StoreBehaviour {
    static func ownerRecord(_ user: String) -> PropertyList {
        ["majorVersion": 1, "minorVersion": 0, "user": .string(user)]
    }

    func ownedKeysFromTheOwnersIndex() async throws {
        try await withStore { store in
            let plain: PropertyList = ["majorVersion": 1, "minorVersion": 0]
            // ann owns k00…k24 of fleet and one key of fleet0 and fleet. (prefixes next to "fleet/"); bob owns the
            // odd ones from 25 on; the NFD spelling of ann's name is another user; nobody owns "open".
            try await store.write { transaction in
                for number in 0..<40 {
                    let key = String(format: "k%02d", number)
                    try await transaction.save(envelope: plain, key: key, in: "fleet")
                    let owner = number < 25 ? "ann\u{E9}" : number % 2 == 1 ? "bob" : "anne\u{301}"
                    try await transaction.save(
                        envelope: Self.ownerRecord(owner), key: try DocumentOwners.recordKey(key, in: "fleet"),
                        in: DocumentOwners.collection)
                }
                try await transaction.save(envelope: plain, key: "open", in: "fleet")
                for collection in ["fleet0", "fleet."] {
                    try await transaction.save(envelope: plain, key: "k00", in: collection)
                    try await transaction.save(
                        envelope: Self.ownerRecord("ann\u{E9}"), key: "\(collection)/k00", in: DocumentOwners.collection
                    )
                }
                // A record whose document is gone (deleted, the record kept): not listed.
                _ = try await transaction.delete(key: "k03", in: "fleet", expectedRevision: nil)
            }
            let ann = (0..<25).filter { $0 != 3 }.map { String(format: "k%02d", $0) }
            func page(_ owner: String, limit: Int, offset: Int) async throws -> (keys: [String], more: Bool)? {
                try await store.read { try await $0.ownedKeys(in: "fleet", owner: owner, limit: limit, offset: offset) }
            }
            var listed: [String] = []
            var offset = 0
            while true {
                guard let next = try await page("ann\u{E9}", limit: 5, offset: offset) else {
                    Issue.record("\(engine): the owners index is not built")
                    return
                }
                listed += next.keys
                offset += next.keys.count
                guard next.more else { break }
                #expect(next.keys.count == 5)
            }
            #expect(listed == ann, "\(engine)")
            #expect(
                try await page("bob", limit: 100, offset: 0)?.keys
                    == (25..<40).filter { $0 % 2 == 1 }.map {
                        String(format: "k%02d", $0)
                    })
            #expect(try await page("anne\u{301}", limit: 3, offset: 1)?.keys == ["k28", "k30", "k32"])
            #expect(try await page("anne\u{301}", limit: 3, offset: 6)?.more == false)
            #expect(try await page("nobody", limit: 3, offset: 0)?.keys == [])
            await #expect(throws: HangarError.self) {
                try await store.read { try await $0.ownedKeys(in: "a/b", owner: "bob", limit: 1) }
            }
        }
    }
}

extension StoreBehaviour {
    /// An index query in one owner's scope (``Hangar/IndexQuery/owner``): the owner's documents in the range, in
    /// the query's order, paged with cursors in either direction and counted, against a brute-force answer; owners
    /// told apart by their ids' bytes; a cursor of one owner's query refused for another's.
    func indexQueriesInAnOwnersScope() async throws {
        var configuration = Self.configuration()
        configuration.collections["hangars"] = CollectionOptions(indexes: [.path("hours", name: "hours")])
        try await withStore(configuration) { store in
            // Thirty documents, hours 0…9 three times over; k00, k02, … are ann's (NFC é), the odd multiples of 3
            // are anne's (NFD: another user), the rest nobody's.
            func owner(_ number: Int) -> String? {
                number % 2 == 0 ? "ann\u{E9}" : number % 3 == 0 ? "anne\u{301}" : nil
            }
            try await store.write { transaction in
                for number in 0..<30 {
                    let key = String(format: "k%02d", number)
                    let document: PropertyList = [
                        "majorVersion": 1, "minorVersion": 0, "hours": .integer(.init(number % 10)),
                    ]
                    try await transaction.save(envelope: document, key: key, in: "hangars")
                    if let user = owner(number) {
                        try await transaction.save(
                            envelope: Self.ownerRecord(user), key: try DocumentOwners.recordKey(key, in: "hangars"),
                            in: DocumentOwners.collection)
                    }
                }
            }
            for user in ["ann\u{E9}", "anne\u{301}", "nobody"] {
                let expected = (0..<30).filter { owner($0).map { $0.hasSameBytes(as: user) } ?? false }
                    .filter { (2...7).contains($0 % 10) }
                    .sorted { ($0 % 10, String(format: "k%02d", $0)) < ($1 % 10, String(format: "k%02d", $1)) }
                    .map { String(format: "k%02d", $0) }
                for order in [IndexQuery.Order.ascending, .descending] {
                    var query = IndexQuery(
                        collection: "hangars", index: "hours", match: .range(from: .included(2), to: .included(7)),
                        order: order, limit: 4, owner: user)
                    var listed: [String] = []
                    while true {
                        let page = try await store.read { [query] in try await $0.page(query, documents: true) }
                        #expect(page.documents.map(\.key) == page.keys, "\(engine)")
                        listed += page.keys
                        guard let next = page.next else { break }
                        query.after = next
                    }
                    #expect(
                        listed == (order == .ascending ? expected : expected.reversed()), "\(engine) \(user) \(order)")
                }
                let count = try await store.read {
                    try await $0.count(
                        IndexQuery(
                            collection: "hangars", index: "hours", match: .range(from: .included(2), to: .included(7)),
                            owner: user))
                }
                #expect(count == expected.count, "\(engine) \(user)")
            }
            // Ann's cursor is not anne's, nor the open scope's.
            let first = try await store.read {
                try await $0.page(IndexQuery(collection: "hangars", index: "hours", limit: 2, owner: "ann\u{E9}"))
            }
            guard let cursor = first.next else {
                Issue.record("\(engine): ann's first page has no next cursor")
                return
            }
            for other in ["anne\u{301}", nil] {
                try await expectError(.invalidCursor) {
                    _ = try await store.read {
                        try await $0.page(
                            IndexQuery(collection: "hangars", index: "hours", limit: 2, after: cursor, owner: other))
                    }
                }
            }
        }
    }
}

extension StoreBehaviour {
    /// A point read with a token (``Hangar/DocumentStore/document(in:key:after:)``) answers the document as of a
    /// state that covers the token and says which: for a stored key, a missing one, and after a delete.
    func tokenedPointReads() async throws {
        try await withStore { store in
            let document: PropertyList = ["majorVersion": 1, "minorVersion": 0, "n": 1]
            let saved = try await store.writeReturningToken { try await $0.save(envelope: document, key: "k", in: "c") }
            let read = try await store.document(in: "c", key: "k", after: saved.token)
            #expect(read.value?.revision == 1, "\(engine)")
            #expect(read.token.covers(saved.token), "\(engine): \(read.token) does not cover \(saved.token)")
            let missing = try await store.document(in: "c", key: "none", after: saved.token)
            #expect(missing.value == nil && missing.token.covers(saved.token), "\(engine)")
            let deleted = try await store.writeReturningToken {
                try await $0.delete(key: "k", in: "c", expectedRevision: 1)
            }
            let gone = try await store.document(in: "c", key: "k", after: deleted.token)
            #expect(gone.value == nil && gone.token.covers(deleted.token), "\(engine)")
            #expect(!saved.token.covers(deleted.token), "\(engine)")
        }
    }
}
