import Foundation
import Hangar
import HangarHummingbird
import HangarSQLite
import HangarTestSupport
import Hummingbird
import HummingbirdTesting
import PropertyList
import Testing

// The backend of the article "A backend in an afternoon", kept compiling and correct here: between the markers the
// code is the article's, line for line (its `Airfield` is the README quick start's, declared in this file below the
// markers). Change both together; `BackendArticleTests` compares them.

// Article backend: begin
/// The airfields store over HTTP: `GET|HEAD|PUT|DELETE /airfields/{key}` with revisions as ETags, lists, history
/// and restore, `/changes`, and Hangar Sync, each user seeing only the airfields they created.
func airfieldsApplication(storePath: String, tokenKey: [UInt8], port: Int = 8080) throws
    -> some ApplicationProtocol
{
    var configuration = StoreConfiguration()
    // Every airfield is checked against the model, however it comes in (PUT, sync push, import).
    configuration.collections[Airfield.collection] = .documents(of: Airfield.self, history: .keepLast(10))
    let store = try SQLiteStore(path: storePath, store: configuration)

    var options = HangarRouteOptions()
    options.ownership = .perUser  // each document belongs to the user who created it
    let routes = HangarRoutes(store: store, collections: [.documents(Airfield.self)], options: options)

    let router = Router(options: .autoGenerateHeadEndpoints)
    router.add(middleware: HangarErrorMiddleware())
    router.add(middleware: IdentityMiddleware(BearerJWTIdentity(key: tokenKey)))  // HS256 bearer tokens
    routes.addRoutes(to: router)

    return Application(
        router: router,
        server: .hangarHTTP1(),  // oversized header blocks get 431
        configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)),
        services: [StoreService(store: store)])  // closed after the server stops
}
// Article backend: end

/// The quick start's airfield (README, `Tests/HangarTests/Examples/QuickStartTests.swift`).
struct Airfield: VersionedDocument {
    static let collection = "airfields"
    static let format = DocumentFormat(
        current: DocumentVersion(major: 2, minor: 0), oldestReadableMajor: 1,
        migrations: [
            DocumentMigration(from: 1, "rename code to icao") { content in
                var content = content
                content["icao"] = content.removeValue(forKey: "code")
                return content
            }
        ])

    var icao: String
    var name: String

    init(propertyList: PropertyList) throws(HangarError) {
        let reader = try DictionaryReader(propertyList)
        icao = try reader.read("icao")
        name = try reader.read("name")
    }

    var propertyListRepresentation: PropertyList {
        var writer = DictionaryWriter()
        writer.set("icao", icao)
        writer.set("name", name)
        return writer.propertyList
    }
}

@Suite struct BackendQuickStartTests {
    @Test func theReadmeBackendServesAirfields() async throws {
        let directory = try TemporaryDirectory()
        let app = try airfieldsApplication(
            storePath: directory.path + "/airfields.sqlite", tokenKey: RoutesFixture.key, port: 0)
        let token = try await Tokens.token("ada")
        try await app.test(.live) { client in
            #expect(try await client.send(.get, "/airfields").status == 401)
            // A version 1 airfield is migrated on the way in.
            let old = Array(#"{"majorVersion":1,"minorVersion":0,"code":"ESSB","name":"Bromma"}"#.utf8)
            let put = try await client.send(
                .put, "/airfields/ESSB", headers: Tokens.bearer(token, Bodies.json), body: old)
            #expect(put.status == 201 && put.etag == "\"1\"")
            let get = try await client.send(.get, "/airfields/ESSB", headers: Tokens.bearer(token))
            let value = try PropertyList(json: get.body)
            #expect(value["icao"] == "ESSB" && value["majorVersion"] == 2)
            // The model refuses an airfield without a name.
            let nameless = Array(#"{"majorVersion":2,"minorVersion":0,"icao":"ESKN"}"#.utf8)
            let refused = try await client.send(
                .put, "/airfields/ESKN", headers: Tokens.bearer(token, Bodies.json), body: nameless)
            #expect(refused.status == 400 && refused.text.contains("name"), "\(refused.text)")
            // A header block past the server's 80 KiB: 431, not 400.
            let huge = try await client.send(
                .get, "/airfields", headers: Tokens.bearer(token, ["X-Padding": String(repeating: "p", count: 90_000)]))
            #expect(huge.status == 431)
        }
    }
}

/// The article shows the marked code of this file, line for line.
@Suite struct BackendArticleTests {
    @Test func theArticleShowsThisFilesBackend() throws {
        let article = String(
            decoding: try #require(
                FileManager.default.contents(
                    atPath: repositoryRoot
                        + "/Sources/HangarHummingbird/HangarHummingbird.docc/ABackendInAnAfternoon.md")),
            as: UTF8.self)
        let source = String(decoding: try #require(FileManager.default.contents(atPath: #filePath)), as: UTF8.self)
        let lower = try #require(source.range(of: "// Article backend: begin\n")).upperBound
        let upper = try #require(source.range(of: "// Article backend: end", range: lower..<source.endIndex)).lowerBound
        let code = source[lower..<upper].trimmingCharacters(in: .newlines)
        #expect(article.contains(code), "the article's backend differs from this file's")
    }
}
