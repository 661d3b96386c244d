import Foundation
import Hangar
import HangarSQLite
import HangarSync
import HangarTestSupport
import JWTKit
import PilotModels
import PropertyList
import Testing

/// `pilots-server --auth-key FILE` as a real process: bearer tokens on every route but `/health`, each user
/// scoped to the documents they created (REST, the change stream, sync and `hangar db sync --token-file`), and
/// `Idempotency-Key` on `PUT`. On SQLite here; `PilotsAuthPostgresTests` runs the same tests on PostgreSQL.
@Suite struct PilotsAuthTests {
    let directory: TemporaryDirectory
    /// Where the server keeps its store: `--db FILE`, or `--url URL --schema NAME`.
    let storeArguments: [String]
    static let key = Array("a test key of 32 bytes, no more.".utf8)

    init() throws {
        directory = try TemporaryDirectory()
        storeArguments = ["--db", directory.path + "/server.sqlite"]
    }

    /// The tests with the server's store where `storeArguments` say.
    init(directory: TemporaryDirectory, storeArguments: [String]) {
        self.directory = directory
        self.storeArguments = storeArguments
    }

    func startServer(auth: Bool = true) throws -> ServerProcess {
        var arguments = storeArguments
        if auth {
            _ = FileManager.default.createFile(atPath: directory.path + "/key", contents: Data(Self.key))
            arguments += ["--auth-key", directory.path + "/key"]
        }
        return try ServerProcess(arguments, directory: directory.path)
    }

    /// The claims the tests sign.
    struct Claims: JWTPayload {
        var sub: SubjectClaim?
        var exp: ExpirationClaim?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// A token for `user` signed with `key`, expiring at `expires`.
    static func token(
        _ user: String?, key: [UInt8] = key, expires: Date = Date(timeIntervalSinceNow: 3600)
    ) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: key), digestAlgorithm: .sha256)
        return try await keys.sign(
            Claims(sub: user.map { SubjectClaim(value: $0) }, exp: ExpirationClaim(value: expires)))
    }

    static func bearer(_ token: String, _ headers: [String: String] = [:]) -> [String: String] {
        headers.merging(["Authorization": "Bearer \(token)"]) { $1 }
    }

    @Test func everyRouteButHealthNeedsAValidToken() async throws {
        let server = try startServer()
        defer { server.terminate() }
        #expect(try HTTP.send("GET", server.url("/health")).status == 200)
        let good = try await Self.token("ada")
        let badSignature = try await Self.token("ada", key: Array("another key, also of 32 bytes or so".utf8))
        let expired = try await Self.token("ada", expires: Date(timeIntervalSinceNow: -60))
        let noUser = try await Self.token(nil)
        let refusals: [(String, [String: String])] = [
            ("none", [:]), ("bad signature", Self.bearer(badSignature)), ("expired", Self.bearer(expired)),
            ("no sub", Self.bearer(noUser)), ("not bearer", ["Authorization": "Basic YWRhOmFkYQ=="]),
            ("garbage", Self.bearer("not.a.token")),
        ]
        for path in ["/pilots", "/pilots/ada", "/changes", "/sync/pilots/snapshot", "/metrics"] {
            for (what, headers) in refusals {
                let reply = try HTTP.send("GET", server.url(path), headers: headers)
                #expect(reply.status == 401, "\(path), \(what)")
                #expect(reply.headers["www-authenticate"] == "Bearer", "\(path), \(what)")
                #expect(reply.text.split(separator: "\n").count == 1 && reply.text.hasSuffix("\n"), "\(path), \(what)")
            }
        }
        #expect(try HTTP.send("GET", server.url("/pilots/ada"), headers: Self.bearer(expired)).text.contains("expired"))
        let put = try Pilots.put(
            Pilots.document(name: "Ada"), key: "ada", on: server, headers: Self.bearer(badSignature))
        #expect(put.status == 401)
        #expect(try HTTP.send("GET", server.url("/pilots"), headers: Self.bearer(good)).status == 200)
        #expect(server.child.standardError.contains("no --auth-key") == false)
    }

    @Test func twoUsersSeeOnlyTheirOwnDocumentsOnEveryRoute() async throws {
        let server = try startServer()
        defer { server.terminate() }
        let ada = try await Self.token("ada")
        let bo = try await Self.token("bo")
        let events = try HTTP.follow(
            server.url("/changes?since=0"), headers: ["Authorization": "Bearer \(ada)"], directory: directory.path)
        defer { events.killAndWait() }
        #expect(
            try Pilots.put(Pilots.document(name: "Ada"), key: "ada", on: server, headers: Self.bearer(ada)).status
                == 201)
        #expect(
            try Pilots.put(Pilots.document(name: "Bo"), key: "bo", on: server, headers: Self.bearer(bo)).status == 201)
        // Another user's document does not exist for this one: read, overwrite, delete, history, revisions.
        let json = ["Accept": "application/json"]
        #expect(try HTTP.send("GET", server.url("/pilots"), headers: Self.bearer(ada, json)).text.contains("\"ada\""))
        #expect(!(try HTTP.send("GET", server.url("/pilots"), headers: Self.bearer(ada, json)).text.contains("\"bo\"")))
        #expect(try HTTP.send("GET", server.url("/pilots/bo"), headers: Self.bearer(ada)).status == 404)
        #expect(
            try Pilots.put(Pilots.document(name: "Taken"), key: "bo", on: server, headers: Self.bearer(ada)).status
                == 404)
        #expect(try HTTP.send("DELETE", server.url("/pilots/bo"), headers: Self.bearer(ada)).status == 404)
        #expect(try HTTP.send("GET", server.url("/pilots/bo/history"), headers: Self.bearer(ada)).status == 404)
        #expect(try HTTP.send("GET", server.url("/pilots/bo/revisions/1"), headers: Self.bearer(ada)).status == 404)
        let bosOwn = try HTTP.send("GET", server.url("/pilots/bo"), headers: Self.bearer(bo, json))
        #expect(bosOwn.status == 200 && bosOwn.text.contains("\"Bo\""))
        // The change feed: JSON lines and the event stream show only the user's documents, never `_sync…`.
        let lines = try HTTP.send("GET", server.url("/changes?since=0"), headers: Self.bearer(ada)).text
        #expect(lines.contains("\"key\":\"ada\"") && !lines.contains("\"key\":\"bo\"") && !lines.contains("_sync"))
        #expect(
            try Pilots.put(Pilots.document(name: "Ada", hours: 2), key: "ada", on: server, headers: Self.bearer(ada))
                .status == 200)
        #expect(events.waitForOutput(containing: "\"revision\":2", timeout: 30))
        #expect(!events.outputSoFar.contains("\"key\":\"bo\"") && !events.outputSoFar.contains("_sync"))
        // Sync: a snapshot and a pull hold only the user's documents; a push over another's key is not found.
        guard let url = URL(string: server.baseURL) else { throw HarnessFailure("bad URL \(server.baseURL)") }
        let device = try clientStore("bo-device")
        try await device.write { try $0.save(Pilot(name: "Not Bo's"), key: "ada") }
        let replica = SyncReplica(store: device, transport: HTTPSyncTransport(baseURL: url, token: bo))
        let report = try await replica.sync(Pilot.collection)
        #expect(report.pulled == 1 && report.pushed == 0)
        #expect(report.rejected["ada"]?.hasPrefix("notFound") == true)
        #expect(try await device.read { try $0.keys(in: Pilot.collection) } == ["ada", "bo"])
        await device.close()
        let adas = try HTTP.send("GET", server.url("/pilots/ada"), headers: Self.bearer(ada, json))
        #expect(adas.text.contains("\"Ada\"") && adas.etag == "\"2\"")
    }

    @Test func theCommandSyncsOnlyTheTokensUser() async throws {
        guard let hangar = PilotsSyncTests.hangar else {
            print("SKIPPED theCommandSyncsOnlyTheTokensUser: no \(repositoryRoot)/.build/debug/hangar (build the root)")
            return
        }
        let server = try startServer()
        defer { server.terminate() }
        for user in ["ada", "bo"] {
            _ = FileManager.default.createFile(
                atPath: directory.path + "/\(user).token", contents: Data(try await Self.token(user).utf8))
            let device = try clientStore(user)
            try await device.write { writer in
                for index in 0..<2 { try writer.save(Pilot(name: "\(user) \(index)"), key: "\(user)\(index)") }
            }
            await device.close()
        }
        func sync(_ device: String, as user: String) throws -> ProcessOutput {
            try ProcessRunner.run(
                hangar,
                [
                    "db", "sync", "--db", directory.path + "/\(device).sqlite", "--remote", server.baseURL,
                    "--token-file", directory.path + "/\(user).token", "pilots",
                ])
        }
        #expect(try sync("ada", as: "ada").stdout == "synced pilots: pulled 0, pushed 2, conflicts 0\n")
        #expect(try sync("bo", as: "bo").stdout == "synced pilots: pulled 0, pushed 2, conflicts 0\n")
        // Ada's second device gets Ada's two and nothing of Bo's.
        #expect(try sync("ada-2", as: "ada").stdout == "synced pilots: pulled 2, pushed 0, conflicts 0\n")
        #expect(
            try await PilotsSyncTests.pilots(at: directory.path + "/ada-2.sqlite").keys.sorted() == ["ada0", "ada1"])
        #expect(try await PilotsSyncTests.pilots(at: directory.path + "/bo.sqlite").keys.sorted() == ["bo0", "bo1"])
        let unauthenticated = try ProcessRunner.run(
            hangar, ["db", "sync", "--db", directory.path + "/x.sqlite", "--remote", server.baseURL, "pilots"])
        #expect(unauthenticated.status == 1 && unauthenticated.stderr.hasPrefix("hangar: "))
    }

    @Test func anIdempotentPutRetriedGetsItsOriginalAnswerAndOneRevision() async throws {
        for auth in [true, false] {
            let server = try startServer(auth: auth)
            defer { server.terminate() }
            let token = try await Self.token("ada")
            let headers = (auth ? Self.bearer(token) : [:]).merging(["Idempotency-Key": "k-1"]) { $1 }
            let first = try Pilots.put(
                Pilots.document(name: "Ada", hours: 1), key: "ada-\(auth)", on: server, headers: headers)
            #expect(first.status == 201 && first.etag == "\"1\"")
            let retried = try Pilots.put(
                Pilots.document(name: "Ada", hours: 1), key: "ada-\(auth)", on: server, headers: headers)
            #expect(retried.status == 201 && retried.etag == "\"1\"")
            let other = try Pilots.put(Pilots.document(name: "Bo"), key: "bo-\(auth)", on: server, headers: headers)
            #expect(other.status == 422)
            let history = try HTTP.send(
                "GET", server.url("/pilots/ada-\(auth)/history"),
                headers: (auth ? Self.bearer(token) : [:]).merging(["Accept": "application/json"]) { $1 })
            #expect(history.text.components(separatedBy: "\"revision\"").count == 2, "\(history.text)")
            let fresh = try Pilots.put(
                Pilots.document(name: "Ada", hours: 2), key: "ada-\(auth)", on: server,
                headers: headers.merging(["Idempotency-Key": "k-2"]) { $1 })
            #expect(fresh.status == 200 && fresh.etag == "\"2\"")
            #expect(server.child.standardError.contains("no --auth-key") == !auth)
        }
    }

    /// A client store with the Pilots format, as an app on a device opens it.
    func clientStore(_ name: String) throws -> SQLiteStore {
        var configuration = StoreConfiguration()
        configuration.registry = .pilots
        configuration.collections[Pilot.collection] = CollectionOptions(format: Pilot.format)
        return try SQLiteStore(path: directory.path + "/\(name).sqlite", store: configuration)
    }
}
