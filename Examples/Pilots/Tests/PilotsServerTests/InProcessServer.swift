import Foundation
import HTTPTypes
import Hangar
import HangarPostgres
import HangarSQLite
import HangarTestSupport
import Hummingbird
import HummingbirdTesting
import Logging
import PilotsHTTP
import PropertyList
import Testing

/// The engines the in-process tests run on.
enum Engine: String, Sendable, CustomTestStringConvertible {
    case sqlite, postgresql

    /// SQLite always; PostgreSQL beside a test server (`Scripts/with-postgres.sh`), else SKIPPED with a warning
    /// on standard error (or failing, with `HANGAR_REQUIRE_POSTGRES=1`).
    static var available: [Engine] { TestPostgres.shouldRun ? [.sqlite, .postgresql] : [.sqlite] }

    var testDescription: String { rawValue }
}

/// A fresh Pilots store for one test (a SQLite file in a folder of its own, or a schema of its own on the test
/// server) and the application `buildApplication` makes over it, run in process with HummingbirdTesting.
struct InProcessServer: Sendable {
    let engine: Engine
    let directory: TemporaryDirectory
    let location: PilotsServerConfiguration.StoreLocation

    init(_ engine: Engine) throws {
        self.engine = engine
        directory = try TemporaryDirectory()
        switch engine {
        case .sqlite: location = .sqlite(path: directory.path + "/pilots.sqlite")
        case .postgresql:
            location = .postgres(url: try TestPostgres.requireURL(), schema: TestPostgres.uniqueSchemaName("routes"))
        }
    }

    /// The server's configuration: a 4096-byte body limit, and logs kept quiet (warnings and worse only).
    func configuration() -> PilotsServerConfiguration {
        var logger = Logger(label: "pilots-server-tests")
        logger.logLevel = .warning
        var configuration = PilotsServerConfiguration(store: location, logger: logger)
        configuration.port = 0
        configuration.api.maximumBodySize = 4096
        // Every suite starts at once, each opening connections to one test server on a loaded machine: the first
        // connection may take longer than the server's 5 s.
        configuration.postgresAcquireTimeout = .seconds(30)
        return configuration
    }

    /// Builds the application and runs `body` with a client of it: `.router` hands requests to the router,
    /// `.live` runs the HTTP server on a free loopback port (`client.port`). The store is closed afterwards.
    func test<Value: Sendable>(
        _ setup: TestingSetup = .router, _ body: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        let app = try await buildApplication(configuration())
        return try await app.test(setup, body)
    }

    /// Opens the store as the server does (``Hangar/StoreConfiguration/pilotsServer()``, or `configuration`),
    /// runs `body` on it, and closes it: to prepare what a test serves, or to check what it left.
    func withStore<Value>(
        _ configuration: StoreConfiguration = .pilotsServer(),
        _ body: (any DocumentStore) async throws -> Value
    ) async throws -> Value {
        try await location.withStore(configuration, body)
    }
}

extension TestClientProtocol {
    /// Sends one request. A header with an empty value is left out.
    func send(
        _ method: HTTPRequest.Method, _ uri: String, headers: [String: String] = [:], body: [UInt8]? = nil
    ) async throws -> HTTPReply {
        var fields = HTTPFields()
        for (name, value) in headers where !value.isEmpty {
            guard let name = HTTPField.Name(name) else { throw HarnessFailure("bad header name \(name)") }
            fields[name] = value
        }
        let response = try await executeRequest(
            uri: uri, method: method, headers: fields, body: body.map { ByteBuffer(bytes: $0) })
        var headers: [String: String] = [:]
        for field in response.headers { headers[field.name.canonicalName] = field.value }
        return HTTPReply(
            status: response.status.code, headers: headers, body: Array(response.body.readableBytesView))
    }

    /// PUTs `document` as JSON to `/pilots/KEY`.
    func put(_ document: PropertyList, key: String, headers: [String: String] = [:]) async throws -> HTTPReply {
        var headers = headers
        headers["Content-Type"] = "application/json"
        return try await send(.put, "/pilots/\(key)", headers: headers, body: try Pilots.json(document))
    }
}

extension PilotsServerConfiguration.StoreLocation {
    /// Opens the store at this location with `configuration`, runs `body` on it, and closes it, whatever `body`
    /// does: what a test prepares for a server, or checks after it.
    func withStore<Value>(
        _ configuration: StoreConfiguration, _ body: (any DocumentStore) async throws -> Value
    ) async throws -> Value {
        let store: any DocumentStore
        switch self {
        case .sqlite(let path): store = try SQLiteStore(path: path, store: configuration)
        case .postgres(let url, let schema):
            store = try await PostgresStore(url: url, schema: schema, store: configuration)
        }
        do {
            let value = try await body(store)
            await store.close()
            return value
        } catch {
            await store.close()
            throw error
        }
    }
}
