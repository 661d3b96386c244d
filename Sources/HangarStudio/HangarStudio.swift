public import Hangar
public import Hummingbird

/// Settings of a studio that its host chooses.
public struct StudioOptions: Sendable {
    /// Where the studio's pages live in the app: `""` for the root (as `hangar studio` serves it), or a path
    /// such as `"/studio"` (no trailing slash).
    public var prefix: String
    /// The secret every page, JSON, event-stream and file request must carry (`?token=` once, then an `HttpOnly`,
    /// `SameSite=Strict` cookie); `nil` when the host's own authentication protects the studio (a mounted studio
    /// behind an ``Hummingbird/RouterMiddleware`` that checks users). Only the static assets are served without it.
    public var token: String?
    /// Whether the write controls (restore, delete, edit) are offered and answered; read-only when `false`. A write
    /// also needs a same-origin request (`Origin` or `Sec-Fetch-Site`), whatever the token.
    public var allowsWrites: Bool
    /// The integrity check the Health page runs: every problem as one line (empty for a sound store); `nil`
    /// runs the studio's own (the engine's own check, ``Hangar/DocumentStore/storageProblems()``, then every
    /// document read back, ``Hangar/DocumentStore/unreadableDocuments()``).
    public var check: (@Sendable () async throws -> [String])?
    /// Where the Health page's backup writes its copy (a folder); `nil`: beside the store file. Backups are
    /// offered for stores kept in a file (``Hangar/StorageFacts/file``: SQLite's).
    public var backupFolder: String?
    /// How often an event stream with nothing to say sends a `: keep-alive` comment.
    public var eventStreamHeartbeat: Duration = .seconds(15)
    /// How many rows a Collection page shows at most.
    public var pageSize = 50
    /// Migration Kit folders (`HangarTesting`) whose format histories the Overview shows: each collection's frozen
    /// versions and the census of its documents against them.
    public var formats: [String] = []

    /// Options for a studio at `prefix`, with `token` (or none), read-only unless `allowsWrites`.
    public init(prefix: String = "", token: String? = nil, allowsWrites: Bool = false) {
        self.prefix = prefix
        self.token = token
        self.allowsWrites = allowsWrites
    }
}

/// Hangar Studio: a store in a browser. Pages for the store's collections and format versions, a collection's
/// documents, a document's typed value, history and diffs, the live change feed, sync's state and conflicts, and
/// the store's health, over a small JSON API, all under one prefix of a Hummingbird router.
///
/// ```swift
/// let studio = HangarStudio(store: store, options: StudioOptions(prefix: "/studio"))
/// studio.addRoutes(to: router)   // after the app's own authentication middleware
/// ```
///
/// `hangar studio --db PATH` serves it alone on loopback with a fresh token (``StudioToken``). The pages are
/// hand-written HTML, CSS and JavaScript embedded in the binary; they build their DOM with `textContent` and are
/// served with a strict `Content-Security-Policy`, so a document's content is only ever shown as text.
public struct HangarStudio<Store: DocumentStore>: Sendable {
    /// The store the studio shows.
    public let store: Store
    /// The host's settings.
    public let options: StudioOptions
    let catalog: StudioCatalog<Store>
    let access: StudioAccess

    /// A studio over `store`.
    public init(store: Store, options: StudioOptions = StudioOptions()) {
        self.store = store
        self.options = options
        self.catalog = StudioCatalog(store: store)
        self.access = StudioAccess(token: options.token)
    }

    /// Adds the studio's routes to `router` under ``StudioOptions/prefix`` (a `RouteCollection` with its own
    /// middleware: the token, the security headers, errors answered as ``HangarHummingbird/HangarHTTPError``).
    /// Register the router with `.autoGenerateHeadEndpoints` so that HEAD answers the pages and the API's GETs.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.addRoutes(routes(context: Context.self), atPath: RouterPath(options.prefix))
    }
}
