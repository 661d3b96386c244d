import Foundation
import HTTPTypes
import Hangar
import HangarHummingbird
import HangarPostgres
import HangarSQLite
import HangarStudio
import HangarTestSupport
import Hummingbird
import HummingbirdTesting
import PropertyList
import Testing

/// The studio on the HTTP layer it shares with the document routes: the same statuses for a store's errors, the
/// same path decoding (odd keys, bad escapes), body limits, HEAD, and the engine's facts through the store's
/// protocol, on SQLite and PostgreSQL.
@Suite struct StudioHTTPTests {
    static let sameOrigin = ["Origin": "http://localhost"]

    /// A SQLite store with `notes`: `b1`; the two spellings of `café` (NFC and NFD, two keys); `a/b`; `..`; and
    /// keys named like the actions (`restore`, `diff`).
    static func store(access: StoreConfiguration.Access = .readWrite, at path: String? = nil) async throws
        -> SQLiteStore
    {
        let path = try path ?? ScratchFolders.make("studio-http") + "/s.sqlite"
        if access == .readOnly {
            let writable = try await store(at: path)
            await writable.close()
        }
        var configuration = StoreConfiguration()
        configuration.access = access
        let store = try SQLiteStore(path: path, store: configuration)
        guard access == .readWrite else { return store }
        let note: (String) -> PropertyList = { StudioStores.envelope(1, 0, ["title": .string($0)]) }
        try await store.write { w in
            for key in ["b1", "caf\u{E9}", "cafe\u{301}", "a/b", "..", "restore", "diff"] {
                try await w.save(envelope: note(key), key: key, in: "notes")
            }
        }
        return store
    }

    /// Runs `body` with a client of a studio (no token, writes allowed) over `store`, on a router that answers HEAD.
    static func withStudio<Store: DocumentStore>(
        _ store: Store, options: StudioOptions = StudioOptions(allowsWrites: true),
        _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let router = Router(options: .autoGenerateHeadEndpoints)
        HangarStudio(store: store, options: options).addRoutes(to: router)
        try await Application(router: router).test(.router, body)
    }

    /// `code` thrown by the host's check: the status HangarHummingbird's routes answer it with.
    @Test(
        arguments: [
            HangarError.Code.readOnly, .connectionLost, .timeout, .outcomeUnknown, .conflict, .newerMajor, .notFound,
            .changesTooOld, .invalidName, .corrupt, .unsupported,
        ])
    func aStoreErrorHasTheDocumentRoutesStatus(_ code: HangarError.Code) async throws {
        let store = try await Self.store()
        var options = StudioOptions(allowsWrites: true)
        options.check = { throw HangarError(code, "the store failed") }
        try await Self.withStudio(store, options: options) { client in
            let answer = try await client.send(.post, "/api/health/check", headers: Self.sameOrigin)
            let expected = HangarHTTPError(HangarError(code, "the store failed")).status.code
            #expect(answer.status == expected, "\(code): \(answer.text)")
            #expect(answer.headers["content-security-policy"] == StudioTestHeaders.policy)
            #expect(try PropertyList(json: answer.body)["error"] == "the store failed", "\(answer.text)")
        }
        await store.close()
    }

    /// The two the studio used to answer otherwise, pinned: a read-only store is 500, a lost connection 503.
    @Test func aReadOnlyStoreIs500AndALostConnection503() async throws {
        let store = try await Self.store(access: .readOnly)
        try await Self.withStudio(store) { client in
            let restore = try await client.send(
                .post, "/api/documents/notes/b1/restore?revision=1", headers: Self.sameOrigin)
            #expect(restore.status == 500, "\(restore.text)")
        }
        var options = StudioOptions()
        options.check = { throw HangarError(.connectionLost, "gone") }
        try await Self.withStudio(store, options: options) { client in
            let check = try await client.send(.post, "/api/health/check", headers: Self.sameOrigin)
            #expect(check.status == 503, "\(check.text)")
        }
        await store.close()
    }

    @Test func oddKeysAreTheirOwnDocuments() async throws {
        let store = try await Self.store()
        try await Self.withStudio(store) { client in
            // The key and the title (the key again) of the document a URL names, as their bytes.
            func named(_ uri: String) async throws -> [[UInt8]] {
                let answer = try await client.json(uri)
                let value = try PropertyList(json: Array((answer["json"]?.stringValue ?? "").utf8))
                return [answer["key"], value["title"]].map { Array(($0?.stringValue ?? "?").utf8) }
            }
            // é composed and decomposed: two keys, each its own document.
            let composed = Array("caf\u{E9}".utf8)
            let decomposed = Array("cafe\u{301}".utf8)
            #expect(try await named("/api/documents/notes/caf%C3%A9") == [composed, composed])
            #expect(try await named("/api/documents/notes/cafe%CC%81") == [decomposed, decomposed])
            #expect(try await named("/api/documents/notes/a%2Fb") == [Array("a/b".utf8), Array("a/b".utf8)])
            #expect(try await named("/api/documents/notes?key=..") == [Array("..".utf8), Array("..".utf8)])
            #expect(try await named("/api/documents/notes/%2E%2E") == [Array("..".utf8), Array("..".utf8)])
            // Keys named like actions are documents, not actions.
            #expect(try await named("/api/documents/notes/restore") == [Array("restore".utf8), Array("restore".utf8)])
            #expect(try await named("/api/documents/notes/diff") == [Array("diff".utf8), Array("diff".utf8)])
            let diff = try await client.json("/api/documents/notes/diff?key=..&a=1&b=1")
            #expect(diff["entries"] == [], "\(diff)")
            #expect(try await client.send(.get, "/api/documents/notes/a/b").status == 404)
        }
        await store.close()
    }

    @Test(arguments: ["%ZZ", "%C3", "caf%C3", "%00", "a%00b", "%FF%FE", "%"])
    func aBadlyEncodedKeyOrCollectionIs400(_ segment: String) async throws {
        let store = try await Self.store()
        try await Self.withStudio(store) { client in
            for path in ["/api/documents/notes/" + segment, "/api/collections/" + segment, "/api/versions/" + segment] {
                let answer = try await client.send(.get, path)
                #expect(answer.status == 400, "\(path): \(answer.status) \(answer.text)")
                #expect(answer.headers["content-security-policy"] == StudioTestHeaders.policy)
            }
            let query = try await client.send(.get, "/api/documents/notes?key=%00")
            #expect(query.status == 400, "\(query.text)")
            let write = try await client.send(.post, "/api/documents/notes/\(segment)/delete", headers: Self.sameOrigin)
            #expect(write.status == 400, "\(write.text)")
        }
        await store.close()
    }

    @Test func theTokenIsCheckedBeforeThePathIsRead() async throws {
        let store = try await Self.store()
        let options = StudioOptions(token: StudioToken.make(), allowsWrites: true)
        try await Self.withStudio(store, options: options) { client in
            let read = try await client.send(.get, "/api/documents/notes/%ZZ")
            let write = try await client.send(.post, "/api/documents/notes/b1/delete", headers: Self.sameOrigin)
            #expect(read.status == 401 && write.status == 401, "\(read.text) \(write.text)")
        }
        await store.close()
    }

    @Test func anEditLargerThanTheLimitIs413AndAnUnknownActionIs404() async throws {
        let store = try await Self.store()
        try await Self.withStudio(store) { client in
            var headers = HTTPFields()
            headers[.origin] = "http://localhost"
            let huge = ByteBuffer(repeating: UInt8(ascii: " "), count: (16 << 20) + 1)
            let save = try await client.executeRequest(
                uri: "/api/documents/notes/b1/save?expected=1", method: .post, headers: headers, body: huge)
            #expect(save.status == .contentTooLarge)
            let bad = try await client.send(.post, "/api/documents/notes/b1/explode", headers: Self.sameOrigin)
            #expect(bad.status == 404)
            let notXML = try await client.executeRequest(
                uri: "/api/documents/notes/b1/save?expected=1", method: .post, headers: headers,
                body: ByteBuffer(string: "<plist"))
            #expect(notXML.status == .badRequest)
            #expect(try await client.json("/api/documents/notes/b1")["revision"] == 1)
        }
        await store.close()
    }

    /// Mounted at a prefix, the studio answers only under it (a path that merely starts with it is not its).
    @Test func onlyPathsUnderThePrefixAreTheStudios() async throws {
        let store = try await Self.store()
        try await Self.withStudio(store, options: StudioOptions(prefix: "/studio")) { client in
            let overview = try await client.send(.get, "/studio/api/overview")
            let page = try await client.send(.get, "/studio/")
            let key = try await client.send(.get, "/studio/api/documents/notes/a%2Fb")
            #expect(overview.status == 200 && page.status == 200 && key.status == 200)
            for path in ["/studiox/api/overview", "/api/overview", "/other", "/studio/api/nothing"] {
                #expect(try await client.send(.get, path).status == 404, "\(path)")
            }
        }
        await store.close()
    }

    @Test func headAnswersTheGETs() async throws {
        let store = try await Self.store()
        try await Self.withStudio(store) { client in
            for path in ["/api/overview", "/", "/assets/studio.css", "/api/documents/notes/b1"] {
                let answer = try await client.send(.head, path)
                #expect(answer.status == 200 && answer.body.isEmpty, "\(path): \(answer.status)")
            }
        }
        await store.close()
    }

    /// A SQLite store's facts, its check and its backup, through `DocumentStore`.
    @Test func theOverviewHealthAndBackupReadTheEngineThroughTheStoresProtocol() async throws {
        let folder = try ScratchFolders.make("studio-http-facts")
        let store = try await Self.store(at: folder + "/s.sqlite")
        try await Self.withStudio(store) { client in
            let facts = try await client.json("/api/overview")["store"]
            #expect(facts?["engine"] == "SQLite" && facts?["path"]?.stringValue == folder + "/s.sqlite")
            #expect((facts?["size"]?.integerValue?.exactly(Int.self) ?? 0) > 0)
            #expect(facts?["walSize"]?.integerValue != nil, "\(String(describing: facts))")
            let check = try await client.send(.post, "/api/health/check", headers: Self.sameOrigin)
            #expect(try PropertyList(json: check.body)["ok"] == true, "\(check.text)")
            let backup = try await client.send(.post, "/api/health/backup", headers: Self.sameOrigin)
            let copy = try #require(try PropertyList(json: backup.body)["path"]?.stringValue, "\(backup.text)")
            #expect(copy.hasPrefix(folder + "/s-backup-") && FileManager.default.fileExists(atPath: copy))
            let copied = try SQLiteStore(path: copy)
            #expect(try await copied.read { try $0.count(in: "notes") } == 7)
            await copied.close()
        }
        await store.close()
    }

    /// A body damaged behind the store's back: the Health page names it (the core's `unreadableDocuments`).
    @Test func theHealthCheckNamesADocumentThatCannotBeRead() async throws {
        let path = try ScratchFolders.make("studio-http-damage") + "/s.sqlite"
        let writable = try await Self.store(at: path)
        await writable.close()
        let damage = try ProcessRunner.run(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                    + "c.execute(\"UPDATE documents SET body = X'626F67757321' WHERE key = 'b1'\"); c.commit()",
                path,
            ])
        try #require(damage.status == 0, "\(damage.stderr)")
        let store = try SQLiteStore(path: path)
        try await Self.withStudio(store) { client in
            let check = try PropertyList(
                json: try await client.send(.post, "/api/health/check", headers: Self.sameOrigin).body)
            #expect(check["ok"] == false)
            let problems = (check["problems"]?.arrayValue ?? []).compactMap(\.stringValue)
            #expect(problems.count == 1 && problems[0].hasPrefix("document not readable: notes/b1: "), "\(problems)")
        }
        await store.close()
    }

    /// A PostgreSQL store's facts: where it is and its size, no write-ahead log of its own, no file to back up.
    @Test(.enabled(if: TestPostgres.shouldRun)) func aPostgresStoreTellsWhatItCan() async throws {
        let schema = TestPostgres.uniqueSchemaName("studio_http")
        let store = try await PostgresStore(url: try TestPostgres.requireURL() + "?schema=" + schema)
        try await StudioStores.writeSample(into: store)
        try await Self.withStudio(store) { client in
            let facts = try await client.json("/api/overview")["store"]
            #expect(facts?["engine"] == "PostgreSQL")
            #expect(facts?["location"]?.stringValue?.hasSuffix(", schema " + schema) == true)
            #expect((facts?["size"]?.integerValue?.exactly(Int.self) ?? 0) > 0, "\(String(describing: facts))")
            #expect(facts?["walSize"] == nil && facts?["path"] == nil)
            let check = try await client.send(.post, "/api/health/check", headers: Self.sameOrigin)
            #expect(try PropertyList(json: check.body)["ok"] == true, "\(check.text)")
            #expect(try await client.send(.post, "/api/health/backup", headers: Self.sameOrigin).status == 409)
        }
        let refused = #expect(throws: HangarError.self) { try store.backup(to: "/tmp/never.sqlite") }
        #expect(refused?.code == .unsupported)
        await store.close()
    }
}

enum StudioTestHeaders {
    /// The Content-Security-Policy every studio answer carries.
    static let policy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
}
