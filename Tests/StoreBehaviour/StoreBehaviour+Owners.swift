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
