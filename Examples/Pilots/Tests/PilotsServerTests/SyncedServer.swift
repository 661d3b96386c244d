import AsyncHTTPClient
import Foundation
import Hangar
import HangarPostgres
import HangarSQLite
import HangarSync
import HangarSyncHTTPClient
import HangarTestSupport
import PilotModels
import PilotsHTTP
import PropertyList

/// A `pilots-server` process on either engine with a ``FaultProxy`` in front of it, device stores beside it, and
/// the checks of Hangar Sync's guarantees: every device compared with the server's store byte for byte, and the
/// revisions the server made of each key counted.
final class SyncedServer: Sendable {
    let engine: Engine
    let directory: TemporaryDirectory
    let location: PilotsServerConfiguration.StoreLocation
    let arguments: [String]
    let process: ServerProcess
    let proxy: FaultProxy

    /// Starts a server on `engine` (a SQLite file in a folder of its own, or a schema of its own on the test
    /// PostgreSQL server) with `extra` arguments, and a proxy to it.
    init(_ engine: Engine, label: String, extra: [String] = []) throws {
        self.engine = engine
        directory = try TemporaryDirectory()
        switch engine {
        case .sqlite:
            let path = directory.path + "/server.sqlite"
            location = .sqlite(path: path)
            arguments = ["--db", path] + extra
        case .postgresql:
            let url = try TestPostgres.requireURL()
            let schema = TestPostgres.uniqueSchemaName(label)
            location = .postgres(url: url, schema: schema)
            arguments = ["--url", url, "--schema", schema] + extra
        }
        process = try ServerProcess(arguments, directory: directory.path)
        guard let port = URLComponents(string: process.baseURL)?.port.flatMap({ UInt16(exactly: $0) }) else {
            process.kill9()
            throw HarnessFailure("no port in \(process.baseURL)")
        }
        proxy = try FaultProxy(serverPort: port)
    }

    /// The server itself, and the proxy in front of it.
    var directURL: URL { URL(string: process.baseURL) ?? URL(fileURLWithPath: "/") }
    var proxyURL: URL { URL(string: "http://127.0.0.1:\(proxy.port)") ?? URL(fileURLWithPath: "/") }

    /// Stops the proxy and the server (SIGTERM; it must exit cleanly).
    @discardableResult
    func stop() -> Int32 {
        proxy.close()
        return process.terminate()
    }

    /// A device's store (SQLite, the Pilots format) in the test's folder.
    func deviceStore(_ name: String) throws -> SQLiteStore {
        var configuration = StoreConfiguration()
        configuration.registry = .pilots
        configuration.collections[Pilot.collection] = CollectionOptions(format: Pilot.format)
        return try SQLiteStore(path: directory.path + "/\(name).sqlite", store: configuration)
    }

    /// A replica of `store` talking to the server through the proxy (`direct`: past it), giving up on a request
    /// after `timeout` seconds. Over async-http-client (the process's shared client): the proxy cuts answers
    /// anywhere, inside their head too, where FoundationNetworking's URLSession would end the test process on Linux
    /// (swift-corelibs-foundation#5285).
    func replica(
        _ store: SQLiteStore, direct: Bool = false, timeout: TimeInterval = 30, resolver: SyncResolver = .default
    ) -> SyncReplica<SQLiteStore> {
        let transport = AsyncHTTPSyncTransport(
            baseURL: direct ? directURL : proxyURL, timeout: .milliseconds(Int(timeout * 1000)),
            client: HTTPClient.shared)
        return SyncReplica(store: store, transport: transport, resolver: resolver)
    }

    /// Opens the server's store as the server does (the server stopped, or beside it on PostgreSQL), runs `body`
    /// and closes it.
    func withStore<Value: Sendable>(
        _ configuration: StoreConfiguration = .pilotsServer(), _ body: (any DocumentStore) async throws -> Value
    ) async throws -> Value {
        try await location.withStore(configuration, body)
    }

    /// What the server holds of the pilots: key → (stored bytes, revision), and each key's kept revisions
    /// (the current one included) with their bytes.
    func serverPilots() async throws -> ServerPilots {
        try await withStore { try await Self.pilots(of: $0) }
    }

    static func pilots<Store: DocumentStore>(of store: Store) async throws -> ServerPilots {
        try await store.read { reader in
            var result = ServerPilots()
            for stored in try await reader.documents(in: Pilot.collection) {
                result.live[stored.key] = (stored.body, stored.revision)
            }
            for change in try await reader.changes(since: 0, in: Pilot.collection, limit: nil) {
                result.revisions[change.key, default: []].append(change.revision)
            }
            for key in result.revisions.keys {
                for info in try await reader.history(in: Pilot.collection, key: key) {
                    if let stored = try await reader.document(in: Pilot.collection, key: key, revision: info.revision) {
                        result.kept[key, default: [:]][info.revision] = stored.body
                    }
                }
            }
            return result
        }
    }

    struct ServerPilots: Sendable {
        /// The live documents.
        var live: [String: (body: [UInt8], revision: Int)] = [:]
        /// Every revision the server made of each key (from its change feed), in order.
        var revisions: [String: [Int]] = [:]
        /// The bytes of the revisions still kept in history (and the current one).
        var kept: [String: [Int: [UInt8]]] = [:]

        /// The pilot's name in each kept revision of `key`.
        func keptNames(_ key: String) -> [String] {
            (kept[key] ?? [:]).sorted { $0.key < $1.key }.compactMap {
                (try? PropertyList(binary: $0.value))?["name"]?.stringValue
            }
        }

        /// Whether every revision ever made of `key` is still kept (so its names can all be checked).
        func keepsAll(_ key: String) -> Bool {
            Set(revisions[key] ?? []).subtracting(Set((kept[key] ?? [:]).keys)).isEmpty
        }
    }

    /// Why the device store at `name` is not exactly the server's pilots (bytes, and the server revision its
    /// replica records as each document's base), or nil when it is.
    static func difference(device store: SQLiteStore, from server: ServerPilots) async throws -> String? {
        let (mine, bases) = try await store.read { reader in
            var mine: [String: [UInt8]] = [:]
            for stored in try reader.documents(in: Pilot.collection) { mine[stored.key] = stored.body }
            var bases: [String: Int] = [:]
            for stored in try reader.documents(in: "_sync/\(Pilot.collection)") {
                bases[stored.key] = try stored.envelope()["base"]?.integerValue?.exactly(Int.self)
            }
            return (mine, bases)
        }
        if Set(mine.keys) != Set(server.live.keys) {
            return "keys \(mine.keys.sorted()) on the device, \(server.live.keys.sorted()) on the server"
        }
        for (key, theirs) in server.live {
            if mine[key] != theirs.body { return "\(key): other bytes than the server's" }
            if bases[key] != theirs.revision {
                return "\(key): base \(bases[key].map(String.init) ?? "none"), server revision \(theirs.revision)"
            }
        }
        return nil
    }
}
