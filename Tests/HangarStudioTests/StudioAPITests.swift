import Foundation
import HTTPTypes
import Hangar
import HangarSQLite
import HangarStudio
import HangarTestSupport
import Hummingbird
import HummingbirdTesting
import PropertyList
import Testing

/// The studio's JSON API in process (HummingbirdTesting): the Collection page's filters, sorts and keyset pages,
/// the version chart against a declared format, the token, and the same-origin rule for writes.
@Suite struct StudioAPITests {
    static let token = StudioToken.make()

    /// A store with `notes` declared at 2.0 with indexes on `tag` and `title`: a1, a2 at 1.0; b1 (3 revisions, tag red),
    /// b2, b3 at 2.0 (b2 tagged `Glider`); the keys `a/b` and `.`.
    static func store() async throws -> SQLiteStore {
        var configuration = StoreConfiguration()
        configuration.collections["notes"] = CollectionOptions(
            indexes: [.path("tag"), .path("title")],
            format: DocumentFormat(
                current: DocumentVersion(major: 2, minor: 0), oldestReadableMajor: 1,
                migrations: [DocumentMigration(from: 1, "nothing") { $0 }]))
        let store = try SQLiteStore(path: try ScratchFolders.make("studio-api") + "/s.sqlite", store: configuration)
        let note: (Int, PropertyList.Dictionary) -> PropertyList = { StudioStores.envelope($0, 0, $1) }
        try await store.write { w in
            try await w.save(envelope: note(1, ["title": "a1"]), key: "a1", in: "notes")
            try await w.save(envelope: note(1, ["title": "a2"]), key: "a2", in: "notes")
            try await w.save(envelope: note(2, ["title": "b1", "tag": "blue"]), key: "b1", in: "notes")
            try await w.save(envelope: note(2, ["class": "Glider", "title": "b2"]), key: "b2", in: "notes")
            try await w.save(envelope: note(2, ["title": "b3"]), key: "b3", in: "notes")
            try await w.save(envelope: note(2, ["title": "slash"]), key: "a/b", in: "notes")
            try await w.save(envelope: note(2, ["title": "dot"]), key: ".", in: "notes")
        }
        for title in ["b1 again", "b1 red"] {
            try await store.write {
                try await $0.save(envelope: note(2, ["title": .string(title), "tag": "red"]), key: "b1", in: "notes")
            }
        }
        return store
    }

    /// Runs `body` with a client of a studio over ``store()`` (with the token unless `open`).
    func withStudio(
        writes: Bool = false, open: Bool = false,
        _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let store = try await Self.store()
        let router = Router()
        HangarStudio(store: store, options: StudioOptions(token: open ? nil : Self.token, allowsWrites: writes))
            .addRoutes(to: router)
        try await Application(router: router).test(.router, body)
        await store.close()
    }

    @Test func theVersionChartCountsAgainstTheDeclaredFormat() async throws {
        try await withStudio(open: true) { client in
            let versions = try await client.json("/api/versions/notes")
            #expect(versions["declared"] == "2.0" && versions["olderThanDeclared"] == 2)
            let rows = versions["versions"]?.arrayValue ?? []
            #expect(rows.map { $0["version"] } == ["1.0", "2.0"])
            #expect(rows.map { $0["count"] } == [2, 5])
            #expect(rows.map { $0["relation"] } == ["older", "current"])
        }
    }

    @Test func collectionsFilterSortAndPageByCursor() async throws {
        try await withStudio(open: true) { client in
            #expect(try await client.keys("/api/collections/notes?version=1.0") == ["a1", "a2"])
            #expect(try await client.keys("/api/collections/notes?prefix=b") == ["b1", "b2", "b3"])
            #expect(try await client.keys("/api/collections/notes?class=Glider") == ["b2"])
            #expect(try await client.keys("/api/collections/notes?index=tag&value=red") == ["b1"])
            #expect(try await client.keys("/api/collections/notes?index=tag&value=blue") == [])
            #expect(try await client.keys("/api/collections/notes?sort=-revision&limit=1") == ["b1"])
            #expect(try await client.keys("/api/collections/notes?sort=-key&limit=2") == ["b3", "b2"])
            // Keyset pages: each page starts after the last row of the one before, whatever the sort.
            for sort in ["key", "-key", "revision", "-revision", "updated", "-updated"] {
                var seen: [String] = []
                var query = "sort=\(sort)&limit=3"
                while true {
                    let page = try await client.json("/api/collections/notes?" + query)
                    seen += (page["rows"]?.arrayValue ?? []).compactMap { $0["key"]?.stringValue }
                    guard let next = page["next"], let after = next["after"]?.stringValue else { break }
                    let value = next["afterValue"]?.stringValue ?? ""
                    query = "sort=\(sort)&limit=3&after=\(StudioTests.encoded(after))&afterValue=\(value)"
                }
                #expect(seen.count == 7 && Set(seen).count == 7, "\(sort): \(seen)")
            }
        }
    }

    /// Any built index, paged by the cursor the API gives: equality, range, both orders; the count of the range.
    @Test func collectionsPageThroughAnyBuiltIndexByCursor() async throws {
        try await withStudio(open: true) { client in
            let first = try await client.json("/api/collections/notes?limit=1")
            #expect(first["indexes"] == ["tag", "title"])
            for (order, expected) in [
                ("asc", ["a1", "a2", "b1", "b2", "b3", ".", "a/b"]),
                ("desc", ["a/b", ".", "b3", "b2", "b1", "a2", "a1"]),
            ] {
                var seen: [String] = []
                var query = "index=title&order=\(order)&limit=3"
                var pages = 0
                while true {
                    let page = try await client.json("/api/collections/notes?" + query)
                    pages += 1
                    #expect(page["matched"] == 7 && page["count"] == 7 && page["start"] == .integer(.init(seen.count)))
                    seen += (page["rows"]?.arrayValue ?? []).compactMap { $0["key"]?.stringValue }
                    guard let next = page["next"], let cursor = next["cursor"]?.stringValue else { break }
                    query = "index=title&order=\(order)&limit=3&cursor=\(cursor)&start=\(seen.count)"
                }
                #expect(seen == expected && pages == 3, "\(order): \(seen)")
            }
            #expect(try await client.keys("/api/collections/notes?index=title&from=b&to=c") == ["b1", "b2", "b3"])
            #expect(try await client.keys("/api/collections/notes?index=title&value=%22b2%22") == ["b2"])
            #expect(try await client.keys("/api/collections/notes?index=tag&value=red") == ["b1"])
            let page = try await client.json("/api/collections/notes?index=title&limit=1")
            let cursor = page["next"]?["cursor"]?.stringValue ?? ""
            for refused in [
                "index=title&order=desc&cursor=\(cursor)", "index=tag&cursor=\(cursor)",
                "index=title&cursor=x\(cursor)",
                "index=nope", "index=title&prefix=b", "index=title&value=a&from=b", "index=title&sort=-key",
            ] {
                let answer = try await client.send(.get, "/api/collections/notes?" + refused)
                #expect(answer.status == 400, "\(refused): \(answer.text)")
            }
        }
    }

    @Test(arguments: ["version=2", "sort=size", "limit=0", "index=nope"])
    func badQueriesAre400(_ query: String) async throws {
        try await withStudio(open: true) { client in
            let answer = try await client.send(.get, "/api/collections/notes?" + query)
            #expect(answer.status == 400, "\(answer.text)")
        }
    }

    @Test func keysThatAreNoPathSegmentStillHaveAURL() async throws {
        try await withStudio(open: true) { client in
            let slash = try await client.json("/api/documents/notes/a%2Fb")
            let dot = try await client.json("/api/documents/notes?key=.")
            let missing = try await client.send(.get, "/api/documents/notes/missing")
            #expect(slash["key"] == "a/b" && dot["key"] == ".")
            #expect(missing.status == 404)
        }
    }

    @Test func theTokenIsNeededForEverythingButTheAssets() async throws {
        try await withStudio { client in
            #expect(try await client.send(.get, "/api/overview").status == 401)
            #expect(
                try await client.send(.get, "/api/overview?token=" + String(repeating: "0", count: 64)).status == 403)
            #expect(try await client.send(.get, "/api/overview?token=" + Self.token).status == 200)
            #expect(try await client.send(.get, "/assets/studio.css").status == 200)
            #expect(try await client.send(.get, "/documents/notes/a1").status == 401)
            let page = try await client.send(.get, "/documents/notes/a1?token=" + Self.token)
            #expect(page.status == 303 && page.headers["location"] == "/documents/notes/a1")
            #expect(page.headers["set-cookie"]?.contains("HttpOnly; SameSite=Strict") == true)
        }
    }

    @Test func writesNeedWriteModeAndTheSameOrigin() async throws {
        let restore = "/api/documents/notes/b1/restore?revision=1&token=" + Self.token
        try await withStudio { client in
            let sameOrigin = ["Origin": "http://localhost"]
            let refused = try await client.send(.post, restore, headers: sameOrigin)
            #expect(refused.status == 403)
        }
        try await withStudio(writes: true) { client in
            let crossSite = ["Origin": "http://evil.example"]
            #expect(try await client.send(.post, restore, headers: crossSite).status == 403)
            #expect(try await client.send(.post, restore, headers: [:]).status == 403)
            let fetchSite = ["Origin": "http://localhost", "Sec-Fetch-Site": "cross-site"]
            #expect(try await client.send(.post, restore, headers: fetchSite).status == 403)
            let sameOrigin = ["Origin": "http://localhost"]
            let restored = try await client.send(.post, restore, headers: sameOrigin)
            #expect(restored.status == 200 && restored.text == "{\"revision\":4}", "\(restored.text)")
            let stale = "/api/documents/notes/b1/delete?expected=1&token=" + Self.token
            #expect(try await client.send(.post, stale, headers: sameOrigin).status == 409)
        }
    }
}

/// What a test reads of an answer.
struct StudioReply: Sendable {
    let status: Int
    let headers: [String: String]
    let body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
}

enum StudioTests {
    /// `text` as one percent-encoded query value.
    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}

extension TestClientProtocol {
    func send(_ method: HTTPRequest.Method, _ uri: String, headers: [String: String] = [:]) async throws
        -> StudioReply
    {
        var fields = HTTPFields()
        for (name, value) in headers {
            if let name = HTTPField.Name(name) { fields[name] = value }
        }
        let response = try await executeRequest(uri: uri, method: method, headers: fields, body: nil)
        var answer: [String: String] = [:]
        for field in response.headers { answer[field.name.canonicalName] = field.value }
        return StudioReply(status: response.status.code, headers: answer, body: Array(response.body.readableBytesView))
    }

    /// The JSON answer of a GET as a property list (`.boolean(false)` when it is not 200 or not JSON).
    func json(_ uri: String) async throws -> PropertyList {
        let reply = try await send(.get, uri)
        guard reply.status == 200, let value = try? PropertyList(json: reply.body) else { return .boolean(false) }
        return value
    }

    /// The keys of a Collection page.
    func keys(_ uri: String) async throws -> [String] {
        (try await json(uri)["rows"]?.arrayValue ?? []).compactMap { $0["key"]?.stringValue }
    }
}
