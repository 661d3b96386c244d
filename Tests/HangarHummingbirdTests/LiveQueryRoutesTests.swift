import AsyncHTTPClient
import Foundation
import Hangar
import HangarHummingbird
import HangarSQLite
import HangarTestSupport
import Hummingbird
import NIOCore
import PilotModels
import PropertyList
import Testing

/// `GET /C?index=…` with `Accept: text/event-stream`: the index query live, over a server on a loopback port and a
/// real HTTP client reading the stream as it comes: the `result` event, a `change` event per change that alters the
/// page (and none for one that does not), the same 400s as the query, a per-user collection showing only the caller's
/// documents (live and plain), and a client that leaves ending the server's live query.
@Suite struct LiveQueryRoutesTests {
    static func configuration(_ recorder: LogRecorder) -> StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.registry = .pilots
        configuration.collections[Pilot.collection] = .documents(of: Pilot.self, indexes: [.path("homeAirfield")])
        configuration.logger = recorder.logger
        return configuration.keepingNoSyncHistory()
    }

    static func pilot(_ name: String, _ airfield: String) -> PropertyList {
        [
            "majorVersion": 2, "minorVersion": 0, "name": .string(name), "homeAirfield": .string(airfield),
            "airplanes": [],
        ]
    }

    /// The store's routes on a free loopback port, per user when `perUser`; `body` gets the port.
    static func serving(
        _ store: SQLiteStore, perUser: Bool = false, _ body: @Sendable (Int) async throws -> Void
    ) async throws {
        let router = Router()
        router.add(middleware: HangarErrorMiddleware())
        var options = HangarRouteOptions()
        if perUser {
            router.add(middleware: IdentityMiddleware(BearerJWTIdentity(key: RoutesFixture.key)))
            options.ownership = .perUser
        }
        HangarRoutes(store: store, collections: [.documents(Pilot.self)], options: options).addRoutes(to: router)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in try await body(try #require(client.port)) }
    }

    @Test func aLiveQueryStreamsItsResultThenItsChanges() async throws {
        let directory = try TemporaryDirectory()
        let recorder = LogRecorder()
        let store = try SQLiteStore(path: directory.path + "/store.sqlite", store: Self.configuration(recorder))
        try await store.write { transaction in
            for (key, airfield) in [("a", "ESSB"), ("b", "ESSA"), ("c", "ESSB"), ("d", "ESSB")] {
                try await transaction.save(envelope: Self.pilot(key, airfield), key: key, in: "pilots")
            }
        }
        try await Self.serving(store) { port in
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            let base = "http://127.0.0.1:\(port)/pilots?index=homeAirfield"
            // The query's own 400s, streamed or not.
            for bad in ["&order=up", "&limit=0", "&value=ESSB&prefix=E", "&count=true", "&include=documents"] {
                let reply = try await EventStream.get(client, base + bad)
                #expect(reply.status == .badRequest, "\(bad)")
            }
            let unknown = try await EventStream.get(client, "http://127.0.0.1:\(port)/pilots?index=nope")
            #expect(unknown.status == .badRequest)
            let stream = try await EventStream(client, base + "&value=ESSB&limit=3")
            let result = try await stream.next()
            #expect(result.name == "result")
            #expect(result.data == ["sequence": 4, "keys": ["a", "c", "d"]])
            // A save outside the range: no event; the next event is the revision of "a", as of its own change.
            try await store.write { try await $0.save(envelope: Self.pilot("b2", "ESSA"), key: "b", in: "pilots") }
            try await store.write { try await $0.save(envelope: Self.pilot("a2", "ESSB"), key: "a", in: "pilots") }
            let revised = try await stream.next()
            #expect(revised.name == "change")
            #expect(
                revised.data == [
                    "sequence": 6, "keys": ["a", "c", "d"], "added": [], "removed": [], "revised": ["a"],
                ])
            // "c" leaves the range; then "b" comes in (the page, of at most 3, has room).
            try await store.write { try await $0.save(envelope: Self.pilot("c", "ESSA"), key: "c", in: "pilots") }
            let removed = try await stream.next()
            #expect(
                removed.data == ["sequence": 7, "keys": ["a", "d"], "added": [], "removed": ["c"], "revised": []])
            try await store.write { try await $0.save(envelope: Self.pilot("b3", "ESSB"), key: "b", in: "pilots") }
            let added = try await stream.next()
            #expect(
                added.data == ["sequence": 8, "keys": ["a", "b", "d"], "added": ["b"], "removed": [], "revised": []])
            // The client leaves: the server's live query ends (its task is cancelled, its feed released).
            #expect(recorder.records("Live query opened").count == 1)
            stream.close()
            try await client.shutdown()
            try await EventStream.waitFor { recorder.records("Live query ended").count == 1 }
        }
        await store.close()
    }

    @Test func aPerUserLiveQueryShowsOnlyTheCallersDocuments() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(
            path: directory.path + "/store.sqlite", store: Self.configuration(LogRecorder()))
        try await Self.serving(store, perUser: true) { port in
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            let (ada, bob) = (try await Tokens.token("ada"), try await Tokens.token("bob"))
            func put(_ key: String, _ airfield: String, as token: String) async throws {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/pilots/\(key)")
                request.method = .PUT
                request.headers.add(name: "Authorization", value: "Bearer \(token)")
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(try Self.pilot(key, airfield).encoded(as: .json))
                let response = try await client.execute(request, timeout: .seconds(30))
                #expect(response.status == .created || response.status == .ok, "PUT \(key)")
            }
            try await put("a1", "ESSB", as: ada)
            try await put("b1", "ESSB", as: bob)
            let stream = try await EventStream(
                client, "http://127.0.0.1:\(port)/pilots?index=homeAirfield&value=ESSB", token: ada)
            let result = try await stream.next()
            #expect(result.data?["keys"] == ["a1"])
            // Bob's document in the range is not Ada's: no event for it; hers comes as of her own write.
            try await put("b2", "ESSB", as: bob)
            try await put("a2", "ESSB", as: ada)
            let change = try await stream.next()
            #expect(change.data?["keys"] == ["a1", "a2"] && change.data?["added"] == ["a2"])
            #expect(change.data?["sequence"] == .integer(.init(try await store.lastChangeSequence())))
            stream.close()
            try await client.shutdown()
        }
        await store.close()
    }

    /// A plain index query in a per-user collection is answered from the owners index in the same scan: the
    /// caller's keys alone, paged with a cursor that is theirs (another user's is 400), and counted.
    @Test func aPerUserIndexQueryPagesAndCountsOnlyTheCallersDocuments() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(
            path: directory.path + "/store.sqlite", store: Self.configuration(LogRecorder()))
        try await Self.serving(store, perUser: true) { port in
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            let (ada, bob) = (try await Tokens.token("ada"), try await Tokens.token("bob"))
            func send(_ path: String, as token: String, put body: PropertyList? = nil) async throws -> (
                status: UInt, body: PropertyList?
            ) {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)" + path)
                request.headers.add(name: "Authorization", value: "Bearer \(token)")
                request.headers.add(name: "Accept", value: "application/json")
                if let body {
                    request.method = .PUT
                    request.headers.add(name: "Content-Type", value: "application/json")
                    request.body = .bytes(try body.encoded(as: .json))
                }
                let response = try await client.execute(request, timeout: .seconds(30))
                let bytes = try await response.body.collect(upTo: 1 << 20)
                return (response.status.code, try? PropertyList(json: Array(bytes.readableBytesView)))
            }
            for (key, airfield, token) in [
                ("a1", "ESSB", ada), ("b1", "ESSB", bob), ("a2", "ESSB", ada), ("a3", "ESSA", ada),
                ("b2", "ESSB", bob), ("a4", "ESSB", ada),
            ] {
                let put = try await send("/pilots/\(key)", as: token, put: Self.pilot(key, airfield))
                #expect(put.status == 201, "PUT \(key)")
            }
            let query = "/pilots?index=homeAirfield&value=ESSB"
            let first = try await send(query + "&limit=2", as: ada)
            #expect(first.status == 200 && first.body?["keys"] == ["a1", "a2"], "\(String(describing: first.body))")
            guard case .string(let cursor)? = first.body?["next"] else {
                Issue.record("no next cursor: \(String(describing: first.body))")
                return
            }
            let second = try await send(query + "&limit=2&after=\(cursor)", as: ada)
            #expect(second.body?["keys"] == ["a4"] && second.body?["next"] == nil, "\(String(describing: second.body))")
            #expect(try await send(query + "&after=\(cursor)", as: bob).status == 400)
            #expect(try await send(query + "&count=true", as: ada).body?["count"] == 3)
            #expect(try await send(query + "&count=true", as: bob).body?["count"] == 2)
            #expect(try await send(query + "&order=desc", as: bob).body?["keys"] == ["b2", "b1"])
            try await client.shutdown()
        }
        await store.close()
    }
}

/// A server-sent event stream read with async-http-client as its bytes come (by one test task).
final class EventStream {
    struct Event: Sendable {
        let name: String
        let data: PropertyList.Dictionary?
    }

    private let reader: Task<Void, any Error>
    private var iterator: AsyncStream<Event>.Iterator

    /// `GET url` with `Accept: text/event-stream` (and a bearer token), once its `200` came.
    init(_ client: HTTPClient, _ url: String, token: String? = nil) async throws {
        let response = try await Self.get(client, url, token: token)
        guard response.status == .ok else { throw TestFailure("\(url): \(response.status)") }
        let (events, sink) = AsyncStream.makeStream(of: Event.self)
        iterator = events.makeAsyncIterator()
        reader = Self.read(response, into: sink)
    }

    /// Reads the response's bytes as they come, and yields each event.
    private static func read(_ response: HTTPClientResponse, into sink: AsyncStream<Event>.Continuation)
        -> Task<Void, any Error>
    {
        Task {
            defer { sink.finish() }
            var buffer: [UInt8] = []
            for try await chunk in response.body {
                buffer += chunk.readableBytesView
                while let end = endOfEvent(in: buffer) {
                    if let event = parse(Array(buffer[..<end])) { sink.yield(event) }
                    buffer.removeFirst(end + 2)
                }
            }
        }
    }

    static func get(_ client: HTTPClient, _ url: String, token: String? = nil) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "text/event-stream")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        return try await client.execute(request, timeout: .seconds(60))
    }

    /// The next event that is not a comment; a failure when the stream ended.
    func next() async throws -> Event {
        guard let event = await iterator.next() else { throw TestFailure("the event stream ended") }
        return event
    }

    /// Leaves the stream: the connection is closed.
    func close() { reader.cancel() }

    private static func endOfEvent(in buffer: [UInt8]) -> Int? {
        guard buffer.count >= 2 else { return nil }
        return (0..<(buffer.count - 1)).first { buffer[$0] == 10 && buffer[$0 + 1] == 10 }
    }

    /// `event:` and `data:` lines; `nil` for a comment (`: keep-alive`).
    private static func parse(_ bytes: [UInt8]) -> Event? {
        var name: String?
        var data: PropertyList.Dictionary?
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") {
                data = try? PropertyList(json: Array(line.dropFirst(6).utf8)).dictionaryValue
            }
        }
        return name.map { Event(name: $0, data: data) }
    }

    /// Waits until `condition` holds, checking every 50 ms for at most 30 s (a bound for a loaded machine, not a
    /// timing under test).
    static func waitFor(_ condition: () -> Bool) async throws {
        for _ in 0..<600 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("the condition did not hold within 30 s")
    }
}
