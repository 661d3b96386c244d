public import Hangar
import HangarSync
public import Hummingbird
import PropertyList

/// Settings of the routes that a deployment chooses.
public struct HangarRouteOptions: Sendable {
    /// Whose documents a request sees.
    public enum Ownership: Sendable {
        /// One scope for everyone: every request sees and writes every document.
        case shared
        /// Each document belongs to the user who created it (``HangarUser/current``, set by an
        /// ``IdentityMiddleware``): a user sees, lists, follows, syncs and writes only their own, and another
        /// user's document is answered as if there were none (404). A request without a user is refused (401).
        /// Users are told apart by the bytes of their ids (``HangarSync/SyncOwnership``).
        case perUser
    }

    /// The largest body a write reads, in bytes: a PUT body (413 beyond), and each document of a sync push (one
    /// larger than this is rejected, the others applied). Default 1 MiB.
    public var maximumBodySize = 1 << 20
    /// The largest sync push body read, in bytes: 413 as soon as more have arrived (or at once, when
    /// `Content-Length` says more), before anything is decoded or applied. Default 16 MiB; a
    /// ``HangarSync/SyncReplica`` sends at most ``HangarSync/SyncReplica/pushBatchBytes`` (8 MiB) of documents
    /// in one push.
    public var maximumPushBodySize = 16 << 20
    /// How many keys a list answers when the request gives no `limit`.
    public var defaultPageSize = 100
    /// The largest `limit` a list accepts.
    public var maximumPageSize = 1000
    /// How often an event stream with nothing to say sends a `: keep-alive` comment.
    public var eventStreamHeartbeat: Duration = .seconds(15)
    /// Whose documents a request sees; ``Ownership/shared`` by default.
    public var ownership = Ownership.shared

    /// The default options.
    public init() {}
}

/// The backend half of a Hangar app on Hummingbird 2: for each collection it serves, documents with revisions as
/// ETags, conditional requests and content negotiation, lists, history and restore; the change feed as JSON lines
/// and server-sent events; and Hangar Sync. Generic over any engine's ``Hangar/DocumentStore``.
///
/// ```swift
/// let routes = HangarRoutes(store: store, collections: [.documents(Airfield.self)])
/// routes.addRoutes(to: router)
/// ```
///
/// Routes, for each collection `C`:
/// - `GET /C` keys, paged and filtered (`limit`, `offset`, `class=TAG` or `index=NAME&value=V`);
///   `GET|HEAD|PUT|DELETE /C/{key}`; `GET /C/{key}/history`; `GET /C/{key}/revisions/{n}`;
///   `POST /C/{key}/revisions/{n}/restore`. A key is one path segment, percent-decoded (`a%2Fb` is the key `a/b`).
/// - `GET /changes` as JSON lines, or server-sent events with `Accept: text/event-stream`.
/// - Hangar Sync's `GET /sync/C/changes|snapshot|events` and `POST /sync/C/push` (``HangarSyncRoutes``).
///
/// The routes throw their errors as they are: add ``HangarErrorMiddleware`` to the router to answer them.
public struct HangarRoutes<Store: DocumentStore>: Sendable {
    /// The store every route reads and writes.
    public let store: Store
    /// The collections served.
    public let collections: [ServedCollection]
    /// The deployment's settings.
    public let options: HangarRouteOptions

    /// Routes over `store` for `collections` (their names must be distinct by their bytes, without `/`, and not
    /// reserved: names starting `_sync` are Hangar Sync's).
    public init(store: Store, collections: [ServedCollection], options: HangarRouteOptions = HangarRouteOptions()) {
        self.store = store
        self.collections = collections
        self.options = options
    }

    /// Adds every route to `router`. Register the router with `.autoGenerateHeadEndpoints` (``makeRouter()``
    /// does) so that HEAD answers every GET route.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        for collection in collections {
            DocumentRoutes(store: store, collection: collection, options: options).addRoutes(to: router)
        }
        ChangeRoutes(store: store, options: options).addRoutes(to: router)
        var server = SyncServer(store: store)
        server.maximumDocumentSize = options.maximumBodySize
        var sync = HangarSyncRoutes(
            server: server, collections: collections.map(\.name), maximumPushBodySize: options.maximumPushBodySize)
        sync.eventHeartbeat = options.eventStreamHeartbeat
        sync.user = { try HangarUser.scope(options.ownership) }
        sync.addRoutes(to: router)
    }

    /// A router whose HEAD answers every GET route (RFC 9110 §9.3.2), with ``HangarErrorMiddleware``, and these
    /// routes.
    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(options: .autoGenerateHeadEndpoints)
        router.add(middleware: HangarErrorMiddleware())
        addRoutes(to: router)
        return router
    }
}
