import AsyncHTTPClient
import Foundation
import Hangar
import HangarSQLite
import HangarSync
import HangarSyncHTTPClient
import PilotModels
import PropertyList
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Live pulls through a real `pilots-server` process: replicas following its event stream
/// (`GET /sync/pilots/events`, `SyncReplica.follow`) over URLSession, a server killed and restarted under a
/// follower (over async-http-client), and the stream's scope with auth on.
@Suite struct PilotsSyncLiveTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    /// A client store with the Pilots format, as an app on a device opens it.
    func clientStore(_ name: String) throws -> SQLiteStore {
        var configuration = StoreConfiguration()
        configuration.registry = .pilots
        configuration.collections[Pilot.collection] = CollectionOptions(format: Pilot.format)
        return try SQLiteStore(path: directory.path + "/\(name).sqlite", store: configuration)
    }

    /// A replica of `store` through `server`, retrying quickly (the tests restart servers): over URLSession, or
    /// (`cuttable`) over async-http-client, for a test whose server may die inside an answer's head (where
    /// FoundationNetworking ends the process on Linux, swift-corelibs-foundation#5285).
    static func replica(_ store: SQLiteStore, _ url: URL, token: String? = nil, cuttable: Bool = false)
        -> SyncReplica<SQLiteStore>
    {
        let transport: any SyncTransport =
            cuttable
            ? AsyncHTTPSyncTransport(baseURL: url, token: token, client: HTTPClient.shared)
            : HTTPSyncTransport(baseURL: url, token: token)
        var replica = SyncReplica(store: store, transport: transport)
        replica.followRetryDelay = .milliseconds(50)
        replica.followLongestRetryDelay = .milliseconds(400)
        return replica
    }

    /// Waits until `condition` holds, checking every 20 ms for at most `seconds`; whether it held.
    static func eventually(within seconds: Double = 30, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    /// The pilots of a local store: key → (stored bytes, local revision).
    static func pilots(of store: SQLiteStore) async throws -> [String: (body: [UInt8], revision: Int)] {
        var result: [String: (body: [UInt8], revision: Int)] = [:]
        for stored in try await store.read({ try $0.documents(in: Pilot.collection) }) {
            result[stored.key] = (stored.body, stored.revision)
        }
        return result
    }

    /// The server's pilots, through a snapshot: key → (stored bytes, server revision).
    static func serverPilots(_ url: URL, token: String? = nil) async throws -> [String: (body: [UInt8], revision: Int)]
    {
        var result: [String: (body: [UInt8], revision: Int)] = [:]
        for item in try await HTTPSyncTransport(baseURL: url, token: token).snapshot(of: Pilot.collection).items {
            if let body = item.body { result[item.key] = (body, item.revision) }
        }
        return result
    }

    /// A free loopback port (bound, read and released), so a restarted server can listen where the first did.
    static func freePort() throws -> Int {
        #if canImport(Glibc)
            let stream = Int32(SOCK_STREAM.rawValue)
        #else
            let stream = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, stream, 0)
        guard descriptor >= 0 else { throw HarnessFailure("socket failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw HarnessFailure("bind failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func aSaveOnOneReplicaArrivesLiveOnAnother() async throws {
        let server = try ServerProcess(["--db", directory.path + "/server.sqlite"], directory: directory.path)
        defer { server.terminate() }
        guard let url = URL(string: server.baseURL) else { throw HarnessFailure("bad URL \(server.baseURL)") }
        let a = try clientStore("a")
        let b = try clientStore("b")
        let following = [Self.replica(a, url), Self.replica(b, url)].map { replica in
            Task { try await replica.follow(Pilot.collection) }
        }
        // Both have synced once (a checkpoint each) before the saves, so what follows is live.
        #expect(
            try await Self.eventually {
                try await [a, b].asyncAllSatisfy { store in
                    try await store.read { try $0.document(in: "_sync", key: "checkpoint/pilots") } != nil
                }
            })
        let started = ContinuousClock.now
        try await a.write { try $0.save(Pilot(name: "Ada"), key: "ada") }
        #expect(try await Self.eventually { try await Self.pilots(of: b)["ada"] != nil })
        let arrival = ContinuousClock.now - started
        try await b.write { try $0.save(Pilot(name: "Bo"), key: "bo") }
        try await b.write { try $0.save(Pilot(name: "Ada", homeAirfield: "ESSB"), key: "ada", expectedRevision: nil) }
        #expect(
            try await Self.eventually {
                let pilotsOfA = try await Self.pilots(of: a)
                return pilotsOfA["bo"] != nil && pilotsOfA["ada"]?.revision == 2
            })
        for task in following { task.cancel() }
        for task in following { try await task.value }  // Cancelled, a follow returns.
        let fromServer = try await Self.serverPilots(url)
        for store in [a, b] {
            let local = try await Self.pilots(of: store)
            #expect(local.count == 2 && local.allSatisfy { fromServer[$0.key]?.body == $0.value.body })
        }
        print("live arrival of one save through pilots-server (this machine, debug build): \(arrival)")
        await a.close()
        await b.close()
    }

    @Test func aFollowerCatchesUpWithoutGapAfterTheServerIsKilledAndRestarted() async throws {
        let port = try Self.freePort()
        let arguments = ["--db", directory.path + "/server.sqlite"]
        var server = try ServerProcess(arguments, directory: directory.path, port: port)
        guard let url = URL(string: server.baseURL) else { throw HarnessFailure("bad URL \(server.baseURL)") }
        let writer = try clientStore("writer")
        let follower = try clientStore("follower")
        // Over async-http-client: the server is killed while requests may be in flight.
        let writing = Self.replica(writer, url, cuttable: true)
        let passes = PassLog()
        let following = Task {
            try await Self.replica(follower, url, cuttable: true).follow(Pilot.collection) { passes.add($0) }
        }
        for index in 0..<5 {
            try await writer.write { try $0.save(Pilot(name: "Pilot \(index)"), key: "p\(index)") }
            _ = try await writing.sync(Pilot.collection)
        }
        #expect(try await Self.eventually { try await Self.pilots(of: follower).count == 5 })
        server.kill9()
        // While the server is down the follower keeps retrying; the writer saves offline.
        for index in 5..<10 {
            try await writer.write { try $0.save(Pilot(name: "Pilot \(index)"), key: "p\(index)") }
        }
        try await Task.sleep(for: .milliseconds(300))
        server = try ServerProcess(arguments, directory: directory.path, port: port)
        defer { server.terminate() }
        #expect(try await writing.sync(Pilot.collection).pushed == 5)
        for index in 10..<15 {
            try await writer.write { try $0.save(Pilot(name: "Pilot \(index)"), key: "p\(index)") }
            _ = try await writing.sync(Pilot.collection)
        }
        #expect(try await Self.eventually { try await Self.pilots(of: follower).count == 15 })
        // The pass that applied the last ones reports them once it has also pushed (nothing).
        #expect(try await Self.eventually { passes.pulled >= 15 })
        following.cancel()
        try await following.value
        let fromServer = try await Self.serverPilots(url)
        let local = try await Self.pilots(of: follower)
        #expect(fromServer.count == 15)
        // Each server document arrived once: its bytes, and one local revision (a change applied twice would
        // have saved it again).
        #expect(local.allSatisfy { fromServer[$0.key]?.body == $0.value.body && $0.value.revision == 1 })
        #expect(passes.pulled == 15, "pulled \(passes.pulled)")
        #expect(!passes.resynced)
        await writer.close()
        await follower.close()
    }

    @Test func theEventStreamIsScopedByUserAndRefusedWithoutAToken() async throws {
        _ = FileManager.default.createFile(atPath: directory.path + "/key", contents: Data(PilotsAuthTests.key))
        let server = try ServerProcess(
            ["--db", directory.path + "/server.sqlite", "--auth-key", directory.path + "/key"],
            directory: directory.path)
        defer { server.terminate() }
        guard let url = URL(string: server.baseURL) else { throw HarnessFailure("bad URL \(server.baseURL)") }
        let ada = try await PilotsAuthTests.token("ada")
        let bo = try await PilotsAuthTests.token("bo")
        let adas = HTTPSyncTransport(baseURL: url, token: ada)
        let checkpoint = try await adas.snapshot(of: Pilot.collection).checkpoint
        let anonymous = await #expect(throws: SyncError.self) {
            _ = try await HTTPSyncTransport(baseURL: url).notices(of: Pilot.collection, after: checkpoint)
        }
        #expect(anonymous?.code == .refused && anonymous?.message.hasPrefix("the server answered 401") == true)
        var otherEpoch = checkpoint
        otherEpoch.epoch = UUID().uuidString
        await #expect {
            _ = try await adas.notices(of: Pilot.collection, after: otherEpoch)
        } throws: { ($0 as? SyncError)?.code == .historyChanged }
        let notices = try await adas.notices(of: Pilot.collection, after: checkpoint)
        // Bo's save commits first; Ada's stream must skip it and tell her of her own.
        let bos = try Pilots.put(
            Pilots.document(name: "Bo"), key: "bo", on: server, headers: PilotsAuthTests.bearer(bo))
        #expect(bos.status == 201)
        let adasPut = try Pilots.put(
            Pilots.document(name: "Ada"), key: "ada", on: server, headers: PilotsAuthTests.bearer(ada))
        #expect(adasPut.status == 201)
        var iterator = notices.makeAsyncIterator()
        let adasFirst = try #require(try await iterator.next()).sequence
        #expect(try await adas.pull(Pilot.collection, after: checkpoint).items.map(\.key) == ["ada"])
        // Bo's stream from the same checkpoint tells him of his own save, which committed before Ada's: her
        // first notice came after it, so her stream skipped it.
        let bosNotices = try await HTTPSyncTransport(baseURL: url, token: bo).notices(
            of: Pilot.collection, after: checkpoint)
        var bosIterator = bosNotices.makeAsyncIterator()
        let bosFirst = try #require(try await bosIterator.next()).sequence
        #expect(bosFirst > checkpoint.through && bosFirst < adasFirst)
    }
}

/// What the passes of a follow did, summed.
final class PassLog: Sendable {
    let state = Mutex<(pulled: Int, resynced: Bool)>((0, false))

    func add(_ report: SyncReport) {
        state.withLock { $0 = ($0.pulled + report.pulled, $0.resynced || report.resynced) }
    }
    var pulled: Int { state.withLock { $0.pulled } }
    var resynced: Bool { state.withLock { $0.resynced } }
}

extension Array {
    /// Whether `predicate` holds for every element, checked in order.
    func asyncAllSatisfy(_ predicate: (Element) async throws -> Bool) async rethrows -> Bool {
        for element in self where !(try await predicate(element)) { return false }
        return true
    }
}
