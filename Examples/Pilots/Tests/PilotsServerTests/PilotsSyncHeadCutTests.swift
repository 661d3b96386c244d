import Foundation
import Hangar
import HangarSQLite
import HangarSync
import HangarTestSupport
import PilotModels
import Testing

/// Answers cut inside their head (the status line and headers), at every byte offset, through ``FaultProxy`` in
/// front of a real `pilots-server`, with `AsyncHTTPSyncTransport` (``SyncedServer/replica(_:direct:timeout:resolver:)``):
/// the client process goes on (FoundationNetworking's URLSession ends it there on Linux,
/// swift-corelibs-foundation#5285), the pass fails as `unreachable`, the retry succeeds, and the server made exactly
/// one revision per local change.
@Suite(.serialized) struct PilotsSyncHeadCutTests {
    /// A push the server committed, its answer cut after 0, 1, 2, … bytes up to the last byte of its head.
    @Test func pushAnswersCutAtEveryByteOfTheirHeadAreAppliedOnce() async throws {
        let server = try SyncedServer(.sqlite, label: "head-push")
        defer { server.stop() }
        let device = try server.deviceStore("a")
        let replica = server.replica(device)
        try await device.write { try $0.save(Pilot(name: "P0"), key: "p") }
        #expect(try await replica.sync(Pilot.collection).pushed == 1)
        var headLength = try #require(server.proxy.lastHeadLength)
        #expect(headLength > "HTTP/1.1 200 OK\r\n\r\n".utf8.count)
        var offset = 0
        while offset < headLength {
            let name = "P\(offset + 1)"
            try await device.write { try $0.save(Pilot(name: name), key: "p", expectedRevision: nil) }
            server.proxy.inject(.pass)
            server.proxy.inject(.cutHead(atByte: offset))
            let cut = await #expect(throws: SyncError.self) { try await replica.sync(Pilot.collection) }
            #expect(cut?.code == .unreachable, "offset \(offset): \(cut.map(String.init(describing:)) ?? "")")
            headLength = try #require(server.proxy.lastHeadLength)
            let retried = try await replica.sync(Pilot.collection)
            #expect(retried.pushed == 1 && retried.conflicts == 0, "offset \(offset)")
            offset += 1
        }
        await device.close()
        #expect(server.stop() == 0)
        let pilots = try await server.serverPilots()
        #expect(pilots.revisions["p"] == Array(1...(offset + 1)), "\(pilots.revisions)")
        #expect(pilots.keptNames("p").last == "P\(offset)")
        let reopened = try server.deviceStore("a")
        #expect(try await SyncedServer.difference(device: reopened, from: pilots) == nil)
        await reopened.close()
    }

    /// A pull and a snapshot cut inside their head at every byte: nothing of them is applied, and the next pass
    /// brings everything once.
    @Test func pullAnswersCutAtEveryByteOfTheirHeadApplyNothing() async throws {
        let server = try SyncedServer(.sqlite, label: "head-pull")
        defer { server.stop() }
        let writer = try server.deviceStore("writer")
        let device = try server.deviceStore("c")
        let direct = server.replica(writer, direct: true)
        let replica = server.replica(device)
        try await writer.write { try $0.save(Pilot(name: "W0"), key: "w") }
        #expect(try await direct.sync(Pilot.collection).pushed == 1)
        // The first pass snapshots, every later one pulls: both kinds of answer are cut.
        var headLength = 120
        var offset = 0
        while offset < headLength {
            let name = "W\(offset + 1)"
            try await writer.write { try $0.save(Pilot(name: name), key: "w", expectedRevision: nil) }
            #expect(try await direct.sync(Pilot.collection).pushed == 1)
            let before = try await PilotsSyncFaultTests.bytes(of: device)
            server.proxy.inject(.cutHead(atByte: offset))
            let cut = await #expect(throws: SyncError.self) { try await replica.sync(Pilot.collection) }
            #expect(cut?.code == .unreachable, "offset \(offset)")
            headLength = try #require(server.proxy.lastHeadLength)
            #expect(try await PilotsSyncFaultTests.bytes(of: device) == before, "offset \(offset)")
            #expect(try await replica.sync(Pilot.collection).pulled == 1, "offset \(offset)")
            offset += 1
        }
        await device.close()
        await writer.close()
        #expect(server.stop() == 0)
        let pilots = try await server.serverPilots()
        #expect(pilots.revisions["w"] == Array(1...(offset + 1)))
        let reopened = try server.deviceStore("c")
        #expect(try await SyncedServer.difference(device: reopened, from: pilots) == nil)
        await reopened.close()
    }

    /// `hangar db sync` whose push answer is cut at every byte of its head: each time one line `hangar: …` and exit
    /// status 1 (not a signal), and the next run pushes, nothing twice.
    @Test func theCommandSurvivesAPushAnswerCutInsideItsHead() async throws {
        guard let hangar = PilotsSyncTests.hangar else {
            print("SKIPPED theCommandSurvivesAPushAnswerCutInsideItsHead: no hangar command built")
            return
        }
        let server = try SyncedServer(.sqlite, label: "head-command")
        defer { server.stop() }
        let arguments = [
            "db", "sync", "--db", server.directory.path + "/c.sqlite", "--remote", server.proxyURL.absoluteString,
            "pilots",
        ]
        let first = try ProcessRunner.run(hangar, arguments)
        #expect(first.stdout == "synced pilots: pulled 0, pushed 0, conflicts 0\n", "\(first.stderr)")
        var headLength = try #require(server.proxy.lastHeadLength)
        var offset = 0
        while offset < headLength {
            let device = try server.deviceStore("c")
            let name = "C\(offset)"
            try await device.write { try $0.save(Pilot(name: name), key: "c", expectedRevision: nil) }
            await device.close()
            server.proxy.inject(.pass)
            server.proxy.inject(.cutHead(atByte: offset))
            let cut = try ProcessRunner.run(hangar, arguments)
            #expect(
                !cut.signaled && cut.status == 1 && cut.stdout.isEmpty, "offset \(offset): \(cut.status) \(cut.stderr)")
            #expect(cut.stderr.hasPrefix("hangar: ") && cut.stderr.split(separator: "\n").count == 1, "\(cut.stderr)")
            headLength = try #require(server.proxy.lastHeadLength)
            let retried = try ProcessRunner.run(hangar, arguments)
            #expect(retried.stdout == "synced pilots: pulled 0, pushed 1, conflicts 0\n", "\(retried.stderr)")
            offset += 1
        }
        #expect(server.stop() == 0)
        let pilots = try await server.serverPilots()
        #expect(pilots.revisions["c"] == Array(1...offset), "\(pilots.revisions)")
    }

    /// A follower whose event stream is cut after 0, 1, 2, … 239 bytes, through its head (about 160 bytes) and its
    /// opening comment: each time it reconnects (it never gives up), and it ends with every document once, without
    /// a resync.
    @Test func aFollowerWhoseEventStreamIsCutAnywhereInItsHeadMissesNothing() async throws {
        let server = try SyncedServer(.sqlite, label: "head-events")
        defer { server.stop() }
        let writer = try server.deviceStore("writer")
        let follower = try server.deviceStore("follower")
        let writing = server.replica(writer, direct: true)
        var following = server.replica(follower)
        following.followRetryDelay = .milliseconds(10)
        following.followLongestRetryDelay = .milliseconds(100)
        let passes = PassLog()
        let task = Task { [following] in try await following.follow(Pilot.collection) { passes.add($0) } }
        var written = 0
        func write() async throws {
            written += 1
            let key = "p\(written)"
            try await writer.write { try $0.save(Pilot(name: key), key: key) }
            #expect(try await writing.sync(Pilot.collection).pushed == 1)
        }
        try await write()
        #expect(
            try await PilotsSyncLiveTests.eventually { try await PilotsSyncLiveTests.pilots(of: follower).count == 1 })
        for cut in 0..<240 {
            server.proxy.cutNextStream(afterBytes: cut)
            server.proxy.cutStreams()
            #expect(try await PilotsSyncLiveTests.eventually { server.proxy.pendingStreamCuts == 0 }, "cut \(cut)")
            try await write()
            let count = written
            #expect(
                try await PilotsSyncLiveTests.eventually {
                    try await PilotsSyncLiveTests.pilots(of: follower).count == count
                }, "cut \(cut)")
        }
        task.cancel()
        try await task.value
        let local = try await PilotsSyncLiveTests.pilots(of: follower)
        #expect(local.count == written && local.values.allSatisfy { $0.revision == 1 })
        #expect(!passes.resynced)
        await writer.close()
        await follower.close()
    }
}
