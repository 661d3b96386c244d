import Foundation
import Hangar
import HangarSQLite
import HangarSync
import HangarTestSupport
import PilotModels
import PropertyList
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Hangar Sync through a real `pilots-server` process on loopback: clients as `hangar db sync` processes (the
/// root package's build, SKIPPED when it is not built) and as in-process replicas over HTTP (URLSession).
@Suite struct PilotsSyncTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    /// The root package's `hangar` (built by `swift build` there), or nil: the test then says SKIPPED.
    static let hangar: String? = {
        let path = repositoryRoot + "/.build/debug/hangar"
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()

    func startServer() throws -> ServerProcess {
        try ServerProcess(["--db", directory.path + "/server.sqlite"], directory: directory.path)
    }

    /// A client store with the Pilots format, as an app on a device opens it.
    func clientStore(_ name: String) throws -> SQLiteStore {
        var configuration = StoreConfiguration()
        configuration.registry = .pilots
        configuration.collections[Pilot.collection] = CollectionOptions(format: Pilot.format)
        return try SQLiteStore(path: directory.path + "/\(name).sqlite", store: configuration)
    }

    /// The live pilots of a store file: key → stored bytes; and each one's local revision.
    static func pilots(at path: String) async throws -> [String: (body: [UInt8], revision: Int)] {
        let store = try SQLiteStore(path: path)
        let documents = try await store.read { try $0.documents(in: Pilot.collection) }
        await store.close()
        var result: [String: (body: [UInt8], revision: Int)] = [:]
        for stored in documents { result[stored.key] = (stored.body, stored.revision) }
        return result
    }

    static func same(_ a: [String: (body: [UInt8], revision: Int)], _ b: [String: (body: [UInt8], revision: Int)])
        -> Bool
    {
        a.count == b.count && a.allSatisfy { b[$0.key]?.body == $0.value.body }
    }

    @Test func twoDevicesEditOfflineAndConvergeThroughTheServer() async throws {
        let server = try startServer()
        defer { server.terminate() }
        guard let url = URL(string: server.baseURL) else { throw HarnessFailure("bad URL \(server.baseURL)") }
        let a = try clientStore("a")
        let b = try clientStore("b")
        let replicaA = SyncReplica(store: a, transport: HTTPSyncTransport(baseURL: url))
        let replicaB = SyncReplica(store: b, transport: HTTPSyncTransport(baseURL: url))
        try await a.write { try $0.save(Pilot(name: "Ada"), key: "ada") }
        try await b.write { try $0.save(Pilot(name: "Bo"), key: "bo") }
        _ = try await replicaA.sync(Pilot.collection)
        _ = try await replicaB.sync(Pilot.collection)
        #expect(try await replicaA.sync(Pilot.collection).pulled == 1)
        // Offline on both: A renames Bo, B sets Bo's airfield; the merge keeps both.
        try await a.write { try $0.save(Pilot(name: "Bo Renamed"), key: "bo", expectedRevision: nil) }
        try await b.write { try $0.save(Pilot(name: "Bo", homeAirfield: "ESSB"), key: "bo", expectedRevision: nil) }
        #expect(try await replicaA.sync(Pilot.collection).pushed == 1)
        let report = try await replicaB.sync(Pilot.collection)
        #expect(report.conflicts == 1 && report.pushed == 1)
        _ = try await replicaA.sync(Pilot.collection)
        await a.close()
        await b.close()
        let fromServer = try await Self.pilots(at: directory.path + "/server.sqlite")
        #expect(fromServer.count == 2)
        #expect(Self.same(try await Self.pilots(at: directory.path + "/a.sqlite"), fromServer))
        #expect(Self.same(try await Self.pilots(at: directory.path + "/b.sqlite"), fromServer))
        let reply = try HTTP.send("GET", server.url("/pilots/bo"), headers: ["Accept": "application/json"])
        #expect(reply.text.contains("Bo Renamed") && reply.text.contains("ESSB"))
    }

    @Test func theCommandSyncsAndFailsInOneLine() async throws {
        guard let hangar = Self.hangar else {
            print(
                "SKIPPED theCommandSyncsAndFailsInOneLine: build the root package first (no \(repositoryRoot)/.build/debug/hangar)"
            )
            return
        }
        let server = try startServer()
        defer { server.terminate() }
        let a = try clientStore("a")
        try await a.write { writer in
            for index in 0..<3 { try writer.save(Pilot(name: "P\(index)"), key: "p\(index)") }
        }
        await a.close()
        let first = try ProcessRunner.run(
            hangar, ["db", "sync", "--db", directory.path + "/a.sqlite", "--remote", server.baseURL, "pilots"])
        #expect(first.status == 0)
        #expect(first.stdout == "synced pilots: pulled 0, pushed 3, conflicts 0\n")
        let second = try ProcessRunner.run(
            hangar, ["db", "sync", "--db", directory.path + "/b.sqlite", "--remote", server.baseURL, "pilots"])
        #expect(second.stdout == "synced pilots: pulled 3, pushed 0, conflicts 0\n")
        let refused = try ProcessRunner.run(
            hangar, ["db", "sync", "--db", directory.path + "/b.sqlite", "--remote", server.baseURL, "airplanes"])
        #expect(refused.status == 1 && refused.stdout.isEmpty)
        #expect(refused.stderr.hasPrefix("hangar: ") && refused.stderr.split(separator: "\n").count == 1)
        server.kill9()
        let unreachable = try ProcessRunner.run(
            hangar, ["db", "sync", "--db", directory.path + "/b.sqlite", "--remote", server.baseURL, "pilots"])
        #expect(unreachable.status == 1 && unreachable.stderr.hasPrefix("hangar: "))
    }

    /// A client killed with SIGKILL at random moments of a long pull resumes each time, and ends with every
    /// document exactly once: each applied in its own batch's transaction, never applied twice (local revision 1).
    @Test func aPullKilledAtRandomMomentsResumesWithoutGapOrDuplicate() async throws {
        guard let hangar = Self.hangar else {
            print(
                "SKIPPED aPullKilledAtRandomMomentsResumesWithoutGapOrDuplicate: no \(repositoryRoot)/.build/debug/hangar"
            )
            return
        }
        let server = try startServer()
        defer { server.terminate() }
        guard let url = URL(string: server.baseURL) else { throw HarnessFailure("bad URL \(server.baseURL)") }
        let clientPath = directory.path + "/c.sqlite"
        let arguments = ["db", "sync", "--db", clientPath, "--remote", server.baseURL, "pilots"]
        // The client's checkpoint first (an empty snapshot), so what follows comes as batches of changes.
        #expect(try ProcessRunner.run(hangar, arguments).status == 0)
        let writer = try clientStore("writer")
        let count = 1500
        try await writer.write { transaction in
            for index in 0..<count {
                try transaction.save(Pilot(name: "P\(index)"), key: String(format: "k%05d", index))
            }
        }
        var replica = SyncReplica(store: writer, transport: HTTPSyncTransport(baseURL: url))
        replica.pushBatchSize = 250
        #expect(try await replica.sync(Pilot.collection).pushed == count)
        await writer.close()
        let seed = UInt64(Date().timeIntervalSince1970)
        var generator = SeededGenerator(seed: seed)
        print("aPullKilledAtRandomMomentsResumesWithoutGapOrDuplicate: seed \(seed)")
        var killed = 0
        for _ in 0..<6 {
            let child = try ChildProcess(
                Array(arguments), stderrPath: directory.path + "/sync-\(killed).log", executable: hangar)
            usleep(UInt32.random(in: 20_000...400_000, using: &generator))
            if ChildProcess.wasKilled(child.killAndWait()) { killed += 1 }
        }
        print("aPullKilledAtRandomMomentsResumesWithoutGapOrDuplicate: \(killed) of 6 runs killed mid-way")
        let last = try ProcessRunner.run(hangar, arguments)
        #expect(last.status == 0, "\(last.stderr)")
        let fromServer = try await Self.pilots(at: directory.path + "/server.sqlite")
        let local = try await Self.pilots(at: clientPath)
        #expect(fromServer.count == count)
        #expect(Self.same(local, fromServer))
        #expect(local.values.allSatisfy { $0.revision == 1 })
    }

    /// Pushes cut short by SIGKILL, of the client or of the server, at random moments: each local change ends on
    /// the server exactly once (one revision per document), whatever was lost on the way.
    @Test func pushesKilledAtRandomMomentsApplyEachChangeOnce() async throws {
        guard let hangar = Self.hangar else {
            print("SKIPPED pushesKilledAtRandomMomentsApplyEachChangeOnce: no \(repositoryRoot)/.build/debug/hangar")
            return
        }
        let serverPath = directory.path + "/server.sqlite"
        let clientPath = directory.path + "/c.sqlite"
        let count = 1200
        let client = try clientStore("c")
        try await client.write { transaction in
            for index in 0..<count {
                try transaction.save(Pilot(name: "P\(index)"), key: String(format: "k%05d", index))
            }
        }
        await client.close()
        let seed = UInt64(Date().timeIntervalSince1970)
        var generator = SeededGenerator(seed: seed)
        print("pushesKilledAtRandomMomentsApplyEachChangeOnce: seed \(seed)")
        var server = try startServer()
        var cut = 0
        for round in 0..<6 {
            let child = try ChildProcess(
                ["db", "sync", "--db", clientPath, "--remote", server.baseURL, "pilots"],
                stderrPath: directory.path + "/push-\(round).log", executable: hangar)
            usleep(UInt32.random(in: 50_000...600_000, using: &generator))
            if round % 2 == 0 {
                if ChildProcess.wasKilled(child.killAndWait()) { cut += 1 }
            } else {
                server.kill9()
                if child.waitForExit() != 0 { cut += 1 }
                server = try startServer()
            }
        }
        print("pushesKilledAtRandomMomentsApplyEachChangeOnce: \(cut) of 6 runs cut short")
        let last = try ProcessRunner.run(
            hangar, ["db", "sync", "--db", clientPath, "--remote", server.baseURL, "pilots"])
        #expect(last.status == 0, "\(last.stderr)")
        #expect(server.terminate() == 0)
        let store = try SQLiteStore(path: serverPath)
        let histories = try await store.read { reader in
            try reader.keys(in: Pilot.collection).map { try reader.history(in: Pilot.collection, key: $0).count }
        }
        await store.close()
        #expect(histories.count == count)
        #expect(histories.allSatisfy { $0 == 1 })
        #expect(Self.same(try await Self.pilots(at: clientPath), try await Self.pilots(at: serverPath)))
    }

    /// Through a fault proxy on loopback: an answer lost after the server committed, a request sent twice, a
    /// request lost: each local change is applied once, and the client ends in step.
    @Test func lostAndDuplicatedMessagesThroughAProxyApplyEachChangeOnce() async throws {
        let server = try startServer()
        guard let serverPort = URLComponents(string: server.baseURL)?.port.flatMap({ UInt16(exactly: $0) }) else {
            throw HarnessFailure("no port in \(server.baseURL)")
        }
        let proxy = try FaultProxy(serverPort: serverPort)
        defer { proxy.close() }
        guard let url = URL(string: "http://127.0.0.1:\(proxy.port)") else { throw HarnessFailure("bad URL") }
        let a = try clientStore("a")
        let replica = SyncReplica(store: a, transport: HTTPSyncTransport(baseURL: url, timeout: 20))
        try await a.write { writer in
            try writer.save(Pilot(name: "Ada"), key: "p1")
            try writer.save(Pilot(name: "Bo"), key: "p2")
        }
        // The snapshot passes, the push's answer is lost after the server applied it.
        proxy.inject(.pass)
        proxy.inject(.dropAnswer)
        await #expect(throws: SyncError.self) { try await replica.sync(Pilot.collection) }
        let retried = try await replica.sync(Pilot.collection)
        #expect(retried.pushed == 2 && retried.conflicts == 0)
        // An edit whose push reaches the server twice.
        try await a.write { try $0.save(Pilot(name: "Ada 2"), key: "p1", expectedRevision: nil) }
        proxy.inject(.pass)
        proxy.inject(.duplicate)
        #expect(try await replica.sync(Pilot.collection).pushed == 1)
        // An edit whose push is lost before the server.
        try await a.write { try $0.save(Pilot(name: "Bo 2"), key: "p2", expectedRevision: nil) }
        proxy.inject(.pass)
        proxy.inject(.dropRequest)
        await #expect(throws: SyncError.self) { try await replica.sync(Pilot.collection) }
        #expect(try await replica.sync(Pilot.collection).pushed == 1)
        await a.close()
        #expect(server.terminate() == 0)
        let store = try SQLiteStore(path: directory.path + "/server.sqlite")
        let revisions = try await store.read { reader in
            (
                try reader.history(in: Pilot.collection, key: "p1").map(\.revision),
                try reader.history(in: Pilot.collection, key: "p2").map(\.revision)
            )
        }
        await store.close()
        #expect(revisions.0 == [1, 2] && revisions.1 == [1, 2])
        let local = try await Self.pilots(at: directory.path + "/a.sqlite")
        #expect(Self.same(local, try await Self.pilots(at: directory.path + "/server.sqlite")))
    }
}
