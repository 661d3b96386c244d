import Foundation
import Hangar
import HangarSQLite
import PropertyList

/// The stores the studio's tests open: made in process through the store's own API.
enum StudioStores {
    /// The hostile key and value: markup that would run if a page put data through innerHTML.
    static let hostileKey = "<script>window.__pwned=1</script>"
    static let hostileValue = "<img src=x onerror=\"window.__pwned=2\">"
    /// A value no refused request may show.
    static let secret = "TOP-SECRET-VALUE"

    static func envelope(_ major: Int, _ minor: Int, _ fields: PropertyList.Dictionary) -> PropertyList {
        var entries = fields
        entries["majorVersion"] = .integer(.init(major))
        entries["minorVersion"] = .integer(.init(minor))
        return .dictionary(entries)
    }

    /// `notes`: a1, a2 at 1.0; b1 (3 revisions), b2, b3 at 2.0, `secret` at 2.0; `bulk`: 60 documents at 1.0;
    /// with `hostile`, one more note under ``hostileKey``.
    static func writeSample<S: DocumentStore>(into store: S, hostile: Bool = false) async throws {
        try await store.write { w in
            for key in ["a1", "a2"] {
                try await w.save(envelope: envelope(1, 0, ["title": .string(key)]), key: key, in: "notes")
            }
            try await w.save(
                envelope: envelope(2, 0, ["title": "first", "tags": ["red"], "n": 1]), key: "b1", in: "notes")
            for key in ["b2", "b3"] {
                try await w.save(envelope: envelope(2, 0, ["title": .string(key)]), key: key, in: "notes")
            }
            for index in 0..<60 {
                let key = "k" + (index < 10 ? "0" : "") + String(index)
                try await w.save(envelope: envelope(1, 0, ["n": .integer(.init(index))]), key: key, in: "bulk")
            }
            if hostile {
                try await w.save(
                    envelope: envelope(2, 0, ["title": .string(hostileValue), hostileKey: .string(hostileValue)]),
                    key: hostileKey, in: "notes")
            }
        }
        try await store.write { w in
            try await w.save(
                envelope: envelope(2, 0, ["title": "second", "tags": ["red"], "n": 1]), key: "b1", in: "notes")
        }
        try await store.write { w in
            try await w.save(
                envelope: envelope(2, 0, ["title": "third", "tags": ["blue"], "extra": true]), key: "b1", in: "notes")
            try await w.save(envelope: envelope(2, 0, ["title": .string(secret)]), key: "secret", in: "other")
        }
    }

    /// A SQLite store file at `path` holding ``writeSample(into:hostile:)``.
    /// The sample's app configuration: `bulk` has an index over `n` (the studio, opened without it, reads the index
    /// as the store built it).
    static var sampleConfiguration: StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.collections["bulk"] = CollectionOptions(indexes: [.path("n")])
        return configuration
    }

    static func makeSQLite(at path: String, hostile: Bool = false) async throws {
        let store = try SQLiteStore(path: path, store: sampleConfiguration)
        try await writeSample(into: store, hostile: hostile)
        await store.close()
    }

    /// What the pages scenario expects of the sample: the charts, a document, the second page.
    static var expectedPages: [String: Any] {
        [
            "charts": ["notes": ["1.0": 2, "2.0": 3], "bulk": ["1.0": 60], "other": ["2.0": 1]],
            "collection": "notes", "document": "b1", "nextCollection": "bulk", "next": "k50",
            // bulk's index `n`, from 10 to 22, most first, five a page.
            "index": "n", "indexQuery": "index=n&from=10&to=22&order=desc&limit=5", "indexMatched": 13,
            "indexPages": [
                ["k22", "k21", "k20", "k19", "k18"], ["k17", "k16", "k15", "k14", "k13"], ["k12", "k11", "k10"],
            ],
        ]
    }
}
