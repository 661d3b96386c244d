public import Hangar
public import HangarSync
public import Hummingbird
import PropertyList

/// The Hangar Sync endpoints (Documentation/Sync.md) on Hummingbird 2, for the collections an app chooses, over
/// a ``HangarSync/SyncServer``:
///
/// - `GET /sync/{collection}/changes?since=N&store=ID&epoch=E&mark=M[&acknowledged=A&acknowledgedMark=AM]`: a
///   batch after the checkpoint; 410 when it cannot be continued (then `GET …/snapshot`).
/// - `GET /sync/{collection}/snapshot`: every live document and the checkpoint to continue from.
/// - `POST /sync/{collection}/push`: mutations applied at most once, one result each.
/// - `GET /sync/{collection}/events?since=N&store=ID&epoch=E&mark=M[&acknowledged=A&acknowledgedMark=AM]`: a live
///   stream of server-sent events (`text/event-stream`), one `change` event per committed transaction of the
///   collection in the user's scope after the checkpoint (`id`: its sequence), keep-alive comments between; the
///   same 410 answers as `changes` before the stream starts. A notice carries no data: the client pulls.
///
/// Bodies are binary property lists (`application/x-plist`); an error answers `{reason, cause?}` in one, with the
/// status ``HangarSync/SyncHTTP`` maps its code to. A collection not mounted is 404. Store errors are thrown as
/// they are (the app's error middleware answers them).
public struct HangarSyncRoutes<Store: DocumentStore>: Sendable {
    /// The server logic.
    public let server: SyncServer<Store>
    /// The collections served (matched by their bytes; the path's name is percent-decoded).
    public let collections: [String]
    /// The largest push body read, in bytes: 413 as soon as more have arrived (or at once, when `Content-Length`
    /// says more), so a push never holds more than this in memory before it is judged. Default 16 MiB.
    public var maximumPushBodySize: Int
    /// The user a request is served for, called while its route runs (after the app's authentication): a user
    /// pulls, snapshots and pushes only the documents they own (`SyncOwnership`). `nil` (the default): one open
    /// scope.
    public var user: @Sendable () throws -> String? = { nil }
    /// How often the event stream sends a keep-alive comment while nothing commits (so clients and proxies keep
    /// the connection, and a client that left is noticed).
    public var eventHeartbeat: Duration = .seconds(15)

    /// Routes serving `collections` of `server`'s store.
    public init(server: SyncServer<Store>, collections: [String], maximumPushBodySize: Int = 16 << 20) {
        self.server = server
        self.collections = collections.filter(SyncServer<Store>.isSyncable)
        self.maximumPushBodySize = maximumPushBodySize
    }

    /// Adds the routes to `router`.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get(RouterPath(SyncHTTP.path(.changes, collection: ":collection"))) { request, context in
            try await answer { try await changes(request, collection: try context.parameters.require("collection")) }
        }
        router.get(RouterPath(SyncHTTP.path(.events, collection: ":collection"))) { request, context in
            try await respond {
                let collection = try mounted(try context.parameters.require("collection"))
                let checkpoint = try Self.checkpoint(of: request)
                return events(
                    try await server.notices(of: collection, after: checkpoint, user: user()), after: checkpoint,
                    request: request)
            }
        }
        router.get(RouterPath(SyncHTTP.path(.snapshot, collection: ":collection"))) { _, context in
            try await answer {
                let collection = try mounted(try context.parameters.require("collection"))
                return SyncWire.encode(try await server.snapshot(of: collection, user: user()))
            }
        }
        router.post(RouterPath(SyncHTTP.path(.push, collection: ":collection"))) { request, context in
            try await answer {
                let collection = try mounted(try context.parameters.require("collection"))
                let push = try SyncWire.push(try SyncWire.value(try await body(of: request), code: .invalidRequest))
                return SyncWire.encode(try await server.push(push, to: collection, user: user()))
            }
        }
    }

    func changes(_ request: Request, collection: String) async throws -> PropertyList {
        let collection = try mounted(collection)
        return SyncWire.encode(try await server.pull(collection, after: try Self.checkpoint(of: request), user: user()))
    }

    /// The checkpoint of a `changes` or `events` query (``HangarSync/SyncHTTP/checkpoint(query:)``).
    static func checkpoint(of request: Request) throws(SyncError) -> SyncCheckpoint {
        let query = request.uri.queryParameters
        return try SyncHTTP.checkpoint { query.get($0) }
    }

    /// The collection a path's segment names, percent-decoded (400 when it cannot be), when it is served here
    /// (compared by bytes); ``HangarSync/SyncError/Code/notFound`` (404) otherwise.
    func mounted(_ segment: String) throws -> String {
        let collection = try PathSegment.decoded(segment, what: "collection")
        guard collections.contains(where: { $0.hasSameBytes(as: collection) }) else {
            throw SyncError(.notFound, "No collection \"\(collection)\" syncs here")
        }
        return collection
    }

    /// A push's body, read as it arrives: ``HangarSync/SyncError/Code/tooLarge`` (413) as soon as more than
    /// ``maximumPushBodySize`` bytes have come (the rest is never read into memory), or before reading any when
    /// `Content-Length` already says more.
    func body(of request: Request) async throws -> [UInt8] {
        let limit = maximumPushBodySize
        let tooLarge = SyncError(.tooLarge, "The body is larger than \(limit) bytes")
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit { throw tooLarge }
        do {
            // `collect(upTo:)` counts each chunk as it arrives and throws at the first one past the limit, before
            // keeping it: the rest of the body is never read.
            return Array(try await request.body.collect(upTo: limit).readableBytesView)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw tooLarge
        }
    }

    /// The value `body` makes as a binary property list, or a ``HangarSync/SyncError`` as its status and reason.
    func answer(_ body: () async throws -> PropertyList) async throws -> Response {
        try await respond { try Self.respond(.ok, try await body()) }
    }

    /// The response `body` makes, or a ``HangarSync/SyncError`` as its status and reason.
    func respond(_ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let error as SyncError {
            return try Self.respond(
                HTTPResponse.Status(code: SyncHTTP.status(of: error.code)), SyncHTTP.errorBody(error))
        }
    }

    static func respond(_ status: HTTPResponse.Status, _ value: PropertyList) throws -> Response {
        Response(
            status: status, headers: [.contentType: SyncWire.mediaType],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try SyncWire.bytes(value))))
    }
}
