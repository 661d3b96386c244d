import AsyncHTTPClient
import Foundation
import Hangar
import HangarHummingbird
import HangarSQLite
import HangarSync
import HangarSyncHTTPClient
import Hummingbird
import HummingbirdTesting
import PilotModels
import PropertyList
import Testing

/// `HangarRouteOptions.maximumPushBodySize` on a real loopback port, through async-http-client: a push body up to
/// the limit is applied, one byte more is 413 (sent whole, or streamed and left open: refused as its bytes arrive),
/// and a replica keeps its pushes under the limit however much it has to send.
struct SyncHTTPPushLimitTests {
    /// The push limit the routes run with here.
    static let limit = 64 << 10

    /// `HangarRoutes` over a server store of pilots (push bodies up to ``limit``) on a free port; `body` gets the
    /// store and the base URL.
    static func serving(_ body: @Sendable (SQLiteStore, URL) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.path + "/server.sqlite", store: RoutesFixture.configuration())
        var options = HangarRouteOptions()
        options.maximumPushBodySize = limit
        let router = HangarRoutes(store: store, collections: [.documents(Pilot.self)], options: options).makeRouter()
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        do {
            try await app.test(.live) { client in
                let port = try #require(client.port)
                try await body(store, try #require(URL(string: "http://127.0.0.1:\(port)")))
            }
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    /// A push of one pilot whose name pads the encoded body to exactly `size` bytes.
    static func push(ofSize size: Int) throws -> [UInt8] {
        func encoded(_ nameLength: Int) throws -> [UInt8] {
            let pilot = try PropertyList.dictionary([
                "majorVersion": 2, "minorVersion": 0, "name": .string(String(repeating: "a", count: nameLength)),
                "airplanes": [],
            ]).encoded(as: .binary)
            let push = SyncPush(clientID: "client", mutations: [SyncMutation(id: 1, key: "ada", base: 0, body: pilot)])
            return try SyncWire.bytes(SyncWire.encode(push))
        }
        // The name's length moves the body's size one for one once its length prefix is as long as it gets.
        let overhead = try encoded(size / 2).count - size / 2
        let bytes = try encoded(size - overhead)
        guard bytes.count == size else { throw TestFailure("a push of \(size) bytes came out at \(bytes.count)") }
        return bytes
    }

    static func request(_ base: URL, body: HTTPClientRequest.Body) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: base.absoluteString + "/sync/pilots/push")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: SyncWire.mediaType)
        request.body = body
        return request
    }

    @Test func aPushUpToTheLimitIsAppliedAndOneByteMoreIs413() async throws {
        try await Self.serving { store, base in
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            defer { _ = client.shutdown() }
            let atTheLimit = try Self.push(ofSize: Self.limit)
            let over = atTheLimit + [0]

            let refused = try await client.execute(Self.request(base, body: .bytes(over)), timeout: .seconds(30))
            let refusal = try await refused.body.collect(upTo: 1 << 20)
            #expect(refused.status.code == 413)
            let reason = try SyncWire.value(Array(refusal.readableBytesView))["reason"]?.stringValue
            #expect(reason == "The body is larger than \(Self.limit) bytes")
            #expect(try await store.document(in: Pilot.collection, key: "ada") == nil)

            let applied = try await client.execute(Self.request(base, body: .bytes(atTheLimit)), timeout: .seconds(30))
            let answer = try await applied.body.collect(upTo: 1 << 20)
            #expect(applied.status.code == 200)
            let outcomes = try SyncWire.pushAnswer(try SyncWire.value(Array(answer.readableBytesView))).outcomes
            #expect(outcomes.count == 1)
            #expect(try await store.document(in: Pilot.collection, key: "ada")?.revision == 1)
            try await client.shutdown()
        }
    }

    /// A body without `Content-Length` that passes the limit and then stays open: 413 comes while the client is
    /// still sending, so the server never waited for (nor kept) the rest.
    @Test func aStreamedPushIsRefusedAsSoonAsItPassesTheLimit() async throws {
        try await Self.serving { _, base in
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            let (chunks, sender) = AsyncStream.makeStream(of: ByteBuffer.self)
            let body = HTTPClientRequest.Body.stream(chunks, length: .unknown)
            // The first chunks pass the limit by one byte; the stream is finished only once the answer has come.
            sender.yield(ByteBuffer(repeating: 7, count: Self.limit / 2))
            sender.yield(ByteBuffer(repeating: 7, count: Self.limit / 2 + 1))
            let status = try await withThrowingTaskGroup(of: Int?.self) { group in
                group.addTask {
                    let response = try await client.execute(Self.request(base, body: body), timeout: .seconds(60))
                    return Int(response.status.code)
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(20))
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
            sender.finish()
            #expect(status == 413, "no answer while the body was still open")
            try await client.shutdown()
        }
    }

    /// Pending changes worth more than the server takes in one push go in several, each under the limit.
    @Test func aReplicaSplitsItsPushesByBytes() async throws {
        try await Self.serving { store, base in
            let directory = try TemporaryDirectory()
            let device = try SQLiteStore(path: directory.path + "/device.sqlite", store: RoutesFixture.configuration())
            try await AsyncHTTPSyncTransport.withTransport(baseURL: base, timeout: .seconds(30)) { transport in
                // Twelve pilots of 10 KiB each: 120 KiB, almost twice the server's limit.
                try await device.write { writer in
                    for index in 0..<12 {
                        let name = String(repeating: "n", count: 10 << 10) + String(index)
                        try writer.save(Pilot(name: name), key: "p\(index)")
                    }
                }
                var whole = SyncReplica(store: device, transport: transport)
                whole.pushBatchBytes = .max
                await #expect(throws: SyncError.self) { try await whole.sync(Pilot.collection) }
                var replica = SyncReplica(store: device, transport: transport)
                replica.pushBatchBytes = Self.limit / 2
                let report = try await replica.sync(Pilot.collection)
                #expect(report.pushed == 12)
            }
            #expect(try await store.read { try $0.count(in: Pilot.collection) } == 12)
            await device.close()
        }
    }
}
