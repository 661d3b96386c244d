import Foundation
import HangarSync
import HangarTestSupport
import PropertyList
import Testing

/// The Hangar Sync 1 conformance suite (Documentation/Sync.md), over HTTP: against the server at
/// `HANGAR_SYNC_CONFORMANCE_URL` (serving the collection `HANGAR_SYNC_CONFORMANCE_COLLECTION`, default `pilots`,
/// whose format reads 2.x envelopes) when set, else against a `pilots-server` it starts. It writes only keys of its
/// own (a fresh UUID each run), so it may run against a server in use.
@Suite struct SyncConformanceTests {
    let directory: TemporaryDirectory
    let server: ServerProcess?
    let transport: HTTPSyncTransport
    let baseURL: String
    let collection: String

    init() throws {
        directory = try TemporaryDirectory()
        let environment = ProcessInfo.processInfo.environment
        if let url = environment["HANGAR_SYNC_CONFORMANCE_URL"], !url.isEmpty {
            server = nil
            baseURL = url
        } else {
            let started = try ServerProcess(["--db", directory.path + "/server.sqlite"], directory: directory.path)
            server = started
            baseURL = started.baseURL
        }
        collection = environment["HANGAR_SYNC_CONFORMANCE_COLLECTION"].flatMap { $0.isEmpty ? nil : $0 } ?? "pilots"
        guard let url = URL(string: baseURL) else { throw HarnessFailure("bad URL \(baseURL)") }
        transport = HTTPSyncTransport(baseURL: url)
    }

    static func body(_ name: String) throws -> [UInt8] {
        try PropertyList.dictionary(["majorVersion": 2, "minorVersion": 0, "name": .string(name), "airplanes": []])
            .encoded(as: .binary)
    }

    func push(_ client: String, _ mutations: [SyncMutation]) async throws -> [SyncOutcome] {
        try await transport.push(SyncPush(clientID: client, mutations: mutations), to: collection).outcomes
    }

    /// Pulls from `checkpoint` until caught up; the items of every batch, in order.
    func pullAll(after checkpoint: SyncCheckpoint) async throws -> [SyncItem] {
        var checkpoint = checkpoint
        var items: [SyncItem] = []
        while true {
            let batch = try await transport.pull(collection, after: checkpoint)
            items += batch.items
            #expect(batch.checkpoint.through >= checkpoint.through)
            checkpoint = batch.checkpoint
            if !batch.hasMore { return items }
        }
    }

    @Test func pushesAreAppliedOnceAndConflictsCarryTheirsAndTheBase() async throws {
        defer { server?.terminate() }
        let start = try await transport.snapshot(of: collection)
        #expect(start.isSnapshot && !start.hasMore)
        #expect(try await transport.snapshot(of: collection).checkpoint.epoch == start.checkpoint.epoch)
        let key = "conformance-\(UUID().uuidString)"
        let client = "conformance-\(UUID().uuidString)"
        let first = try Self.body("First")
        let created = try await push(client, [SyncMutation(id: 1, key: key, base: 0, body: first)])
        guard case .applied(let revision, nil) = created.first else {
            Issue.record("create: \(created)")
            return
        }
        // The same mutation again: its original answer, and no second revision.
        #expect(try await push(client, [SyncMutation(id: 1, key: key, base: 0, body: first)]) == created)
        let stale = try await push(client, [SyncMutation(id: 2, key: key, base: 0, body: try Self.body("Stale"))])
        #expect(stale == [.conflict(theirs: SyncItem(key: key, revision: revision, body: first), base: nil)])
        let edited = try await push(
            client, [SyncMutation(id: 3, key: key, base: revision, body: try Self.body("Second"))])
        guard case .applied(let second, nil) = edited.first else {
            Issue.record("edit: \(edited)")
            return
        }
        #expect(second > revision)
        let other = try await push(
            "other-\(client)", [SyncMutation(id: 1, key: key, base: revision, body: try Self.body("Other"))])
        #expect(
            other == [
                .conflict(theirs: SyncItem(key: key, revision: second, body: try Self.body("Second")), base: first)
            ])
        // The pull from before: the key once, at its current revision and bytes.
        let items = try await pullAll(after: start.checkpoint).filter { $0.key == key }
        #expect(items == [SyncItem(key: key, revision: second, body: try Self.body("Second"))])
        let deleted = try await push(client, [SyncMutation(id: 4, key: key, base: second, body: nil)])
        #expect(deleted == [.applied(revision: 0)])
        let after = try await pullAll(after: start.checkpoint).filter { $0.key == key }
        #expect(after.count == 1 && after.first?.body == nil)
    }

    @Test func checkpointsThatCannotBeContinuedAre410() async throws {
        defer { server?.terminate() }
        let key = "conformance-\(UUID().uuidString)"
        _ = try await push(
            "conformance-\(UUID().uuidString)", [SyncMutation(id: 1, key: key, base: 0, body: try Self.body("A"))])
        let checkpoint = try await transport.snapshot(of: collection).checkpoint
        var wrongMark = checkpoint
        wrongMark.mark = "0-0-0"
        var ahead = checkpoint
        ahead.through += 1_000_000
        var otherEpoch = checkpoint
        otherEpoch.epoch = UUID().uuidString
        for bad in [wrongMark, ahead, otherEpoch] {
            await #expect {
                _ = try await transport.pull(collection, after: bad)
            } throws: { ($0 as? SyncError)?.code == .historyChanged }
        }
        #expect(try await transport.pull(collection, after: checkpoint).hasMore == false)
    }

    @Test func theEventStreamNoticesCommitsAndRefusesWhatPullRefuses() async throws {
        defer { server?.terminate() }
        let checkpoint = try await transport.snapshot(of: collection).checkpoint
        var otherEpoch = checkpoint
        otherEpoch.epoch = UUID().uuidString
        await #expect {
            _ = try await transport.notices(of: collection, after: otherEpoch)
        } throws: { ($0 as? SyncError)?.code == .historyChanged }
        // The wire: text/event-stream, a comment first, then `id: SEQUENCE` / `event: change` per transaction.
        let query =
            "since=\(checkpoint.through)&store=\(checkpoint.storeID)&epoch=\(checkpoint.epoch)&mark=\(checkpoint.mark)"
        let curl = try HTTP.follow(baseURL + "/sync/\(collection)/events?" + query, directory: directory.path)
        defer { _ = curl.killAndWait() }
        #expect(curl.waitForOutput(containing: ": following", timeout: 30))
        let notices = try await transport.notices(of: collection, after: checkpoint)
        let key = "conformance-\(UUID().uuidString)"
        _ = try await push(
            "conformance-\(UUID().uuidString)", [SyncMutation(id: 1, key: key, base: 0, body: try Self.body("A"))])
        var iterator = notices.makeAsyncIterator()
        let notice = try #require(try await iterator.next())
        #expect(notice.sequence > checkpoint.through)
        #expect(curl.waitForOutput(containing: "event: change\n", timeout: 30))
        #expect(curl.outputSoFar.contains("id: \(notice.sequence)\n"))
        // A notice carries nothing: the pull from the checkpoint holds the change.
        #expect(try await pullAll(after: checkpoint).contains { $0.key == key })
    }

    @Test func unknownCollectionsAndMalformedRequestsAreRefused() async throws {
        defer { server?.terminate() }
        let unknown = await #expect(throws: SyncError.self) {
            _ = try await transport.snapshot(of: "no-such-collection-\(UUID().uuidString)")
        }
        #expect(unknown?.code == .refused && unknown?.message.hasPrefix("the server answered 404") == true)
        let malformed = try HTTP.send(
            "POST", baseURL + "/sync/\(collection)/push", headers: ["Content-Type": SyncWire.mediaType],
            body: try PropertyList.dictionary(["mutations": "not an array"]).encoded(as: .binary))
        #expect(malformed.status == 400)
        let noCheckpoint = try HTTP.send("GET", baseURL + "/sync/\(collection)/changes?since=x")
        #expect(noCheckpoint.status == 400)
    }
}
