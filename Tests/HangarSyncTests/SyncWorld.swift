import Foundation
import Hangar
import HangarSQLite
import HangarSync
import PilotModels
import PropertyList
import Synchronization

/// A server store and clients, each a real SQLite file in a folder of the test's own, the clients syncing
/// through ``FaultyTransport`` over a real ``SyncServer`` (the HTTP layer is tested in the Pilots package).
final class SyncWorld: Sendable {
    let directory: String
    let server: SQLiteStore
    let syncServer: SyncServer<SQLiteStore>

    init(batchLimit: Int = 500, retention: ChangeRetention = ChangeRetention(), test: String = #function) throws {
        directory = NSTemporaryDirectory() + "hangar-sync-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var configuration = Self.configuration()
        configuration.changeRetention = retention
        server = try SQLiteStore(path: directory + "/server.sqlite", store: configuration)
        syncServer = SyncServer(store: server, batchLimit: batchLimit)
    }

    /// The Pilots configuration: the registry and format, history kept.
    static func configuration() -> StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.registry = .pilots
        configuration.collections[Pilot.collection] = CollectionOptions(history: .keepAll, format: Pilot.format)
        return configuration
    }

    /// A client store `name` with a replica syncing through a fault-injecting transport.
    func client(_ name: String, resolver: SyncResolver = .default, over inner: (any SyncTransport)? = nil) throws
        -> Client
    {
        let store = try SQLiteStore(path: directory + "/\(name).sqlite", store: Self.configuration())
        let transport = FaultyTransport(inner ?? LocalSyncTransport(server: syncServer))
        return Client(
            store: store, transport: transport,
            replica: SyncReplica(store: store, transport: transport, resolver: resolver))
    }

    struct Client: Sendable {
        let store: SQLiteStore
        let transport: FaultyTransport
        let replica: SyncReplica<SQLiteStore>

        func sync() async throws -> SyncReport { try await replica.sync(Pilot.collection) }

        func save(_ name: String, key: String, airfield: String? = nil) async throws {
            try await store.write { try await $0.save(Pilot(name: name, homeAirfield: airfield), key: key) }
        }

        func pilot(_ key: String) async throws -> Pilot? { try await store.load(Pilot.self, key: key)?.value }
    }

    /// Every live document of the pilots collection: key (by its bytes) → body.
    static func documents(of store: SQLiteStore) async throws -> [ExactString: [UInt8]] {
        try await store.read { reader in
            var result: [ExactString: [UInt8]] = [:]
            for stored in try reader.documents(in: Pilot.collection) { result[ExactString(stored.key)] = stored.body }
            return result
        }
    }

    /// Whether `client` holds exactly the server's pilots, byte for byte, at the server's revisions.
    func isInStep(_ client: Client) async throws -> Bool {
        let mine = try await Self.documents(of: client.store)
        let theirs = try await Self.documents(of: server)
        guard mine == theirs else { return false }
        for (key, _) in theirs {
            let serverRevision = try await server.document(in: Pilot.collection, key: key.string)?.revision
            let state = try await client.store.document(in: "_sync/\(Pilot.collection)", key: key.string)?.envelope()
            guard state?["base"]?.integerValue?.exactly(Int.self) == serverRevision else { return false }
        }
        return true
    }

    /// How many revisions the server ever made of `key` (history kept and current).
    func revisions(_ key: String) async throws -> [Int] {
        try await server.read { try $0.history(in: Pilot.collection, key: key) }.map(\.revision)
    }

    func close(_ clients: Client...) async {
        for client in clients { await client.store.close() }
        await server.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// A transport that can fail on demand: before a request reaches the server, or after the server answered
/// (the answer lost), the way a dropped connection does.
final class FaultyTransport: SyncTransport, Sendable {
    enum Fault: Sendable {
        /// No fault: this request goes through (to let some pass before a fault).
        case pass
        case dropRequest
        case dropAnswer
    }

    let inner: any SyncTransport
    private let faults = Mutex<[String: [Fault]]>([:])
    private let counts = Mutex<[String: Int]>([:])

    init(_ inner: any SyncTransport) { self.inner = inner }

    /// The next `operation` ("pull", "snapshot", "push") fails with `fault`.
    func inject(_ fault: Fault, on operation: String) {
        faults.withLock { $0[operation, default: []].append(fault) }
    }

    /// Forgets the faults not met yet.
    func clearFaults() { faults.withLock { $0 = [:] } }

    /// How many `operation` requests reached the server.
    func count(_ operation: String) -> Int { counts.withLock { $0[operation] ?? 0 } }

    private func run<T: Sendable>(_ operation: String, _ body: () async throws -> T) async throws -> T {
        let fault = faults.withLock { $0[operation]?.isEmpty == false ? $0[operation]?.removeFirst() : nil }
        if fault == .dropRequest { throw SyncError(.unreachable, "dropped \(operation) request") }
        let answer = try await body()
        counts.withLock { $0[operation, default: 0] += 1 }
        if fault == .dropAnswer { throw SyncError(.unreachable, "dropped \(operation) answer") }
        return answer
    }

    func pull(_ collection: String, after checkpoint: SyncCheckpoint) async throws -> SyncBatch {
        try await run("pull") { try await inner.pull(collection, after: checkpoint) }
    }

    func snapshot(of collection: String) async throws -> SyncBatch {
        try await run("snapshot") { try await inner.snapshot(of: collection) }
    }

    func push(_ push: SyncPush, to collection: String) async throws -> SyncPushAnswer {
        try await run("push") { try await inner.push(push, to: collection) }
    }
}

/// A transport whose server can be replaced (a server restored from a backup).
final class ForwardingTransport: SyncTransport, Sendable {
    let target: Mutex<any SyncTransport>

    init(_ target: any SyncTransport) { self.target = Mutex(target) }

    func pull(_ collection: String, after checkpoint: SyncCheckpoint) async throws -> SyncBatch {
        try await target.withLock { $0 }.pull(collection, after: checkpoint)
    }

    func snapshot(of collection: String) async throws -> SyncBatch {
        try await target.withLock { $0 }.snapshot(of: collection)
    }

    func push(_ push: SyncPush, to collection: String) async throws -> SyncPushAnswer {
        try await target.withLock { $0 }.push(push, to: collection)
    }
}

/// A resolver that records every conflict it is given and answers with the default.
final class RecordingResolver: Sendable {
    private let seen = Mutex<[SyncConflict]>([])
    var conflicts: [SyncConflict] { seen.withLock { $0 } }

    var resolver: SyncResolver {
        SyncResolver { [self] conflict in
            seen.withLock { $0.append(conflict) }
            return SyncResolver.defaultResolution(conflict)
        }
    }
}
