import Crypto
import Foundation
import HTTPTypes
import Hangar
import HangarHummingbird
import HangarSQLite
import HangarTestSupport
import Hummingbird
import HummingbirdTesting
import JWTKit
import PilotModels
import PropertyList

/// One answer, as the tests read it.
struct Reply: Sendable {
    let status: Int
    /// Header values by lowercased name (the last of repeated ones).
    let headers: [String: String]
    let body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
    var etag: String? { headers["etag"] }
}

extension TestClientProtocol {
    /// Sends one request. A header with an empty value is left out.
    func send(
        _ method: HTTPRequest.Method, _ uri: String, headers: [String: String] = [:], body: [UInt8]? = nil
    ) async throws -> Reply {
        var fields = HTTPFields()
        for (name, value) in headers where !value.isEmpty {
            guard let name = HTTPField.Name(name) else { throw TestFailure("bad header name \(name)") }
            fields[name] = value
        }
        let response = try await executeRequest(
            uri: uri, method: method, headers: fields, body: body.map { ByteBuffer(bytes: $0) })
        var headers: [String: String] = [:]
        for field in response.headers { headers[field.name.canonicalName] = field.value }
        return Reply(status: response.status.code, headers: headers, body: Array(response.body.readableBytesView))
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A SQLite store of pilots served by ``HangarRoutes`` in process: open (shared scope), or with bearer tokens
/// and documents per user.
struct RoutesFixture: Sendable {
    static let key = Array("a test key of 32 bytes, no more.".utf8)
    let directory: TemporaryDirectory
    let path: String
    let auth: Bool
    var options = HangarRouteOptions()

    init(auth: Bool = false) throws {
        directory = try TemporaryDirectory()
        path = directory.path + "/store.sqlite"
        self.auth = auth
        options.maximumBodySize = 4096
        options.ownership = auth ? .perUser : .shared
    }

    /// The store's configuration: the pilots registry, every pilot checked against `Pilot`.
    static func configuration() -> StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.registry = .pilots
        configuration.collections[Pilot.collection] = .documents(of: Pilot.self, history: .keepLast(4))
        return configuration.keepingNoSyncHistory()
    }

    /// Runs `body` with a client of the routes over a fresh store, closed afterwards.
    func test<Value: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> Value) async throws
        -> Value
    {
        let store = try SQLiteStore(path: path, store: Self.configuration())
        let router = Router(options: .autoGenerateHeadEndpoints)
        router.add(middleware: HangarErrorMiddleware())
        if auth { router.add(middleware: IdentityMiddleware(BearerJWTIdentity(key: Self.key))) }
        let pilots = ServedCollection.documents(Pilot.self, jsonConvention: JSONConvention(dateKeys: ["dateOfBirth"]))
        HangarRoutes(store: store, collections: [pilots], options: options).addRoutes(to: router)
        do {
            let value = try await Application(router: router).test(.router, body)
            await store.close()
            return value
        } catch {
            await store.close()
            throw error
        }
    }

    /// Opens the store the routes served, runs `body`, closes it.
    func withStore<Value>(_ body: (SQLiteStore) async throws -> Value) async throws -> Value {
        let store = try SQLiteStore(path: path, store: Self.configuration())
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

/// Bearer tokens for the tests, signed with jwt-kit, and hand-made ones for what jwt-kit would not sign.
enum Tokens {
    struct Claims: JWTPayload {
        var sub: SubjectClaim?
        var exp: ExpirationClaim?
        var nbf: NotBeforeClaim?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// An HS256 token for `user`.
    static func token(
        _ user: String, key: [UInt8] = RoutesFixture.key, expires: Date = Date(timeIntervalSinceNow: 3600),
        notBefore: Date? = nil
    ) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: key), digestAlgorithm: .sha256)
        return try await keys.sign(
            Claims(
                sub: SubjectClaim(value: user), exp: ExpirationClaim(value: expires),
                nbf: notBefore.map { NotBeforeClaim(value: $0) }))
    }

    /// `Authorization: Bearer TOKEN`, with `headers`.
    static func bearer(_ token: String, _ headers: [String: String] = [:]) -> [String: String] {
        headers.merging(["Authorization": "Bearer \(token)"]) { $1 }
    }

    /// A token with `header` (JSON) over `payload` (JSON), signed HS256 with `key` whatever the header says.
    static func handMade(header: String, payload: String, key: [UInt8] = RoutesFixture.key) -> String {
        let signingInput = base64URL(Array(header.utf8)) + "." + base64URL(Array(payload.utf8))
        let signature = HMAC<SHA256>.authenticationCode(
            for: Array(signingInput.utf8), using: SymmetricKey(data: key))
        return signingInput + "." + base64URL(Array(signature))
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}

/// Pilot bodies for the tests.
enum Bodies {
    /// A 2.0 pilot as JSON.
    static func pilot(_ name: String) throws -> [UInt8] {
        try PropertyList.dictionary(["majorVersion": 2, "minorVersion": 0, "name": .string(name), "airplanes": []])
            .encoded(as: .json)
    }

    static let json = ["Content-Type": "application/json"]
}

/// A folder of its own for one test, removed at the end.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "hangar-hummingbird-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
