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
import Testing

/// `AsyncHTTPSyncTransport` against `HangarSyncRoutes` served on a real loopback port (HummingbirdTesting's
/// `.live`), over real SQLite stores: a sync both ways, the event stream, the token, and each error the binding
/// maps.
struct SyncHTTPClientTests {
    /// The server's store and the device's, SQLite files in a folder of the test's own.
    struct World {
        let directory: String
        let server: SQLiteStore
        let device: SQLiteStore

        init() throws {
            directory = NSTemporaryDirectory() + "hangar-synchttp-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            server = try SQLiteStore(path: directory + "/server.sqlite", store: Self.configuration())
            device = try SQLiteStore(path: directory + "/device.sqlite", store: Self.configuration())
        }

        static func configuration() -> StoreConfiguration {
            var configuration = StoreConfiguration()
            configuration.registry = .pilots
            configuration.collections[Pilot.collection] = CollectionOptions(history: .keepAll, format: Pilot.format)
            return configuration
        }

        func close() async {
            await server.close()
            await device.close()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Answers 401 (Hummingbird's JSON error body) to a request without `Authorization: Bearer secret`.
    struct RequireToken<Context: RequestContext>: RouterMiddleware {
        func handle(
            _ request: Request, context: Context, next: (Request, Context) async throws -> Response
        ) async throws -> Response {
            guard request.headers[.authorization] == "Bearer secret" else {
                throw HTTPError(.unauthorized, message: "no token")
            }
            return try await next(request, context)
        }
    }

    /// The two HTTP clients, which must behave alike.
    enum Client: String, CaseIterable, Sendable {
        case urlSession
        case asyncHTTPClient

        /// Runs `body` with a transport of this kind to `base` (its own client shut down after).
        func withTransport(
            _ base: URL, token: String? = "secret", timeout: Duration = .seconds(30),
            eventTimeout: Duration = .seconds(45), _ body: (any SyncTransport) async throws -> Void
        ) async throws {
            switch self {
            case .urlSession:
                var transport = HTTPSyncTransport(baseURL: base, token: token, timeout: Self.seconds(timeout))
                transport.eventTimeout = Self.seconds(eventTimeout)
                try await body(transport)
            case .asyncHTTPClient:
                try await AsyncHTTPSyncTransport.withTransport(baseURL: base, token: token, timeout: timeout) {
                    var transport = $0
                    transport.eventTimeout = eventTimeout
                    try await body(transport)
                }
            }
        }

        static func seconds(_ duration: Duration) -> TimeInterval {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
    }

    /// The routes of `world`'s server store on a free loopback port (push bodies up to 64 KiB); `body` gets the
    /// base URL. The event stream's keep-alives come every `heartbeat`.
    static func serving(
        _ world: World, heartbeat: Duration = .seconds(15), _ body: @Sendable (URL) async throws -> Void
    ) async throws {
        let router = Router()
        router.add(middleware: RequireToken())
        var routes = HangarSyncRoutes(
            server: SyncServer(store: world.server), collections: [Pilot.collection], maximumPushBodySize: 64 << 10)
        routes.eventHeartbeat = heartbeat
        routes.addRoutes(to: router)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await body(try #require(URL(string: "http://127.0.0.1:\(port)")))
        }
    }

    @Test(arguments: Client.allCases)
    func aReplicaSyncsBothWaysAndFollowsTheEventStream(client: Client) async throws {
        let world = try World()
        try await Self.serving(world) { base in
            try await client.withTransport(base) { transport in
                let replica = SyncReplica(store: world.device, transport: transport)
                try await world.device.write { writer in
                    try writer.save(Pilot(name: "Ada"), key: "ada")
                    try writer.save(Pilot(name: "Bo"), key: "bo")
                }
                let first = try await replica.sync(Pilot.collection)
                #expect(first.pushed == 2 && first.pulled == 0)
                #expect(try await world.server.load(Pilot.self, key: "ada")?.value.name == "Ada")

                // A notice for a commit on the server, then a pull brings it.
                let checkpoint = try await transport.snapshot(of: Pilot.collection).checkpoint
                let notices = try await transport.notices(of: Pilot.collection, after: checkpoint)
                try await world.server.write { try $0.save(Pilot(name: "Cy"), key: "cy") }
                var iterator = notices.makeAsyncIterator()
                let notice = try await iterator.next()
                #expect((notice?.sequence ?? 0) > checkpoint.through)
                let second = try await replica.sync(Pilot.collection)
                #expect(second.pulled == 1 && second.pushed == 0)
                #expect(try await world.device.load(Pilot.self, key: "cy")?.value.name == "Cy")
            }
        }
        await world.close()
    }

    @Test(arguments: Client.allCases)
    func eachFailureIsTheErrorTheBindingNames(client: Client) async throws {
        let world = try World()
        try await Self.serving(world) { base in
            try await client.withTransport(base) { transport in
                let unknown = await #expect(throws: SyncError.self) { try await transport.snapshot(of: "hangars") }
                #expect(unknown?.code == .refused)
                #expect(unknown?.message == "the server answered 404: No collection \"hangars\" syncs here")

                let large = SyncPush(
                    clientID: "c",
                    mutations: [SyncMutation(id: 1, key: "k", base: 0, body: Array(repeating: 7, count: 70_000))])
                let tooLarge = await #expect(throws: SyncError.self) {
                    try await transport.push(large, to: Pilot.collection)
                }
                #expect(tooLarge?.code == .refused)
                #expect(tooLarge?.message == "the server answered 413: The body is larger than 65536 bytes")

                var other = try await transport.snapshot(of: Pilot.collection).checkpoint
                other.storeID = "another store"
                let moved = await #expect(throws: SyncError.self) {
                    try await transport.pull(Pilot.collection, after: other)
                }
                #expect(moved?.code == .historyChanged)
                let movedStream = await #expect(throws: SyncError.self) {
                    _ = try await transport.notices(of: Pilot.collection, after: other)
                }
                #expect(movedStream?.code == .historyChanged)
            }
            try await client.withTransport(base, token: nil) { anonymous in
                let refused = await #expect(throws: SyncError.self) {
                    try await anonymous.snapshot(of: Pilot.collection)
                }
                #expect(refused?.code == .refused && refused?.message == "the server answered 401: no token")
            }
        }
        // Nothing listens there any more.
        try await client.withTransport(try #require(URL(string: "http://127.0.0.1:1")), timeout: .seconds(5)) {
            nowhere in
            let unreachable = await #expect(throws: SyncError.self) { try await nowhere.snapshot(of: Pilot.collection) }
            #expect(unreachable?.code == .unreachable)
        }
        await world.close()
    }

    /// An event stream that sends nothing for longer than `eventTimeout` (keep-alives every 30 s here) ends as
    /// lost, so a follower reconnects. (async-http-client only: with URLSession on Linux and so short an
    /// `eventTimeout`, opening the stream itself timed out here.)
    @Test func aSilentEventStreamCountsAsLost() async throws {
        let world = try World()
        try await Self.serving(world, heartbeat: .seconds(30)) { base in
            try await Client.asyncHTTPClient.withTransport(base, eventTimeout: .milliseconds(700)) { transport in
                let checkpoint = try await transport.snapshot(of: Pilot.collection).checkpoint
                let notices = try await transport.notices(of: Pilot.collection, after: checkpoint)
                let lost = await #expect(throws: SyncError.self) {
                    for try await _ in notices {}
                }
                #expect(lost?.code == .unreachable)
            }
        }
        await world.close()
    }

    /// A client passed in is the app's: the transport uses it and leaves it running.
    @Test func aClientPassedInIsLeftRunning() async throws {
        let world = try World()
        try await Self.serving(world) { base in
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            let transport = AsyncHTTPSyncTransport(baseURL: base, token: "secret", client: client)
            #expect(try await transport.snapshot(of: Pilot.collection).items.isEmpty)
            try await transport.shutdown()
            #expect(try await transport.snapshot(of: Pilot.collection).isSnapshot)
            try await client.shutdown()
            let closed = await #expect(throws: SyncError.self) { try await transport.snapshot(of: Pilot.collection) }
            #expect(closed?.code == .unreachable)
        }
        await world.close()
    }
}
