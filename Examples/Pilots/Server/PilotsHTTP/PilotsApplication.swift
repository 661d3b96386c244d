public import Hangar
import HangarHummingbird
import HangarPostgres
import HangarSQLite
import HangarStudio
import HangarSync
public import Hummingbird
public import Logging
import PilotModels
import ServiceLifecycle

/// What the Pilots server runs: where its store is, where it listens, and the API's settings.
public struct PilotsServerConfiguration: Sendable {
    /// The store the server opens, on one engine or the other.
    public enum StoreLocation: Sendable {
        /// A SQLite store file (created when missing).
        case sqlite(path: String)
        /// A PostgreSQL store: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`, in `schema` (else the URL's
        /// `schema`, else `hangar`).
        case postgres(url: String, schema: String?)
    }

    /// The store the server opens, with ``Hangar/StoreConfiguration/pilotsServer()``.
    public var store: StoreLocation
    /// With a PostgreSQL store: its read replicas' URLs (``HangarPostgres/PostgresStoreConfiguration/replicas``).
    public var replicaURLs: [String] = []
    /// With a PostgreSQL store: where the change feed listens, when not on `url`'s primary (behind PgBouncer)
    /// (``HangarPostgres/PostgresStoreConfiguration/listenClient``).
    public var listenURL: String?
    /// The address to listen on.
    public var host = "127.0.0.1"
    /// The port to listen on; 0 picks a free one (given to ``onListening``).
    public var port = 8080
    /// The API's settings (``PilotsAPIOptions/engine`` and ``PilotsAPIOptions/schemaVersion`` are set from the
    /// store opened).
    public var api = PilotsAPIOptions()
    /// The logger of the server and of the store.
    public var logger: Logger
    /// Called once the server accepts connections, with its URL `http://HOST:PORT` (the port bound).
    public var onListening: @Sendable (String) async -> Void = { _ in }
    /// On PostgreSQL: how long a request waits for a pooled connection before failing (503); 5 s by default.
    public var postgresAcquireTimeout: Duration = .seconds(5)

    /// A server on `store`, logging with `logger`, on 127.0.0.1:8080.
    public init(store: StoreLocation, logger: Logger = Logger(label: "pilots-server")) {
        self.store = store
        self.logger = logger
    }
}

/// The Pilots server: opens the store, builds the router (``buildRouter(store:options:)``) and the application,
/// and puts the store under the application's service group, which closes it once the HTTP server has finished
/// its requests and ended its change streams. Run it (`try await app.runService()`, or as a service of a larger
/// `ServiceGroup`) or test it (HummingbirdTesting's `app.test(.router)` and `.live`).
///
/// Throws the store's ``Hangar/HangarError`` when it cannot be opened.
public func buildApplication(_ configuration: PilotsServerConfiguration) async throws -> some ApplicationProtocol {
    var options = configuration.api
    switch configuration.store {
    case .sqlite(let path):
        var store = StoreConfiguration.pilotsServer()
        store.logger = configuration.logger
        let opened = try SQLiteStore(path: path, store: store)
        options.engine = "sqlite"
        options.schemaVersion = opened.schemaVersion
        return makeApplication(opened, options: options, configuration: configuration)
    case .postgres(let url, let schema):
        var postgres = try PostgresStoreConfiguration(
            url: url, replicas: configuration.replicaURLs, listenURL: configuration.listenURL, schema: schema,
            store: .pilotsServer())
        postgres.acquireTimeout = configuration.postgresAcquireTimeout
        postgres.logger = configuration.logger
        let opened = try await PostgresStore(configuration: postgres)
        options.engine = "postgresql"
        options.schemaVersion = opened.schemaVersion
        return makeApplication(opened, options: options, configuration: configuration)
    }
}

/// The router of the Pilots API over `store`: request logs, Hummingbird's metrics, the library's
/// `HangarErrorMiddleware`, bearer tokens when ``PilotsAPIOptions/authKey`` is set (every route but `/health`),
/// HangarHummingbird's routes for the `pilots` collection (documents, `/changes`, Hangar Sync), and `/health`,
/// `/metrics`. HEAD answers every GET route.
public func buildRouter<Store: DocumentStore>(store: Store, options: PilotsAPIOptions) -> Router<BasicRequestContext> {
    let router = Router(options: .autoGenerateHeadEndpoints)
    router.addMiddleware {
        LogRequestsMiddleware(.info)
        MetricsMiddleware()
        HangarErrorMiddleware()
    }
    if let key = options.authKey {
        router.add(middleware: IdentityMiddleware(BearerJWTIdentity(key: key), publicPaths: ["/health"]))
    }
    let pilots = ServedCollection.documents(Pilot.self, jsonConvention: options.jsonConvention)
    HangarRoutes(store: store, collections: [pilots], options: options.routes).addRoutes(to: router)
    PilotsAPI(store: store, options: options).addRoutes(to: router)
    if options.studio {
        // After the identity middleware: the studio is behind the server's own authentication.
        if options.authKey != nil { router.add(middleware: StudioUsersMiddleware(users: options.studioUsers)) }
        HangarStudio(store: store, options: StudioOptions(prefix: "/studio")).addRoutes(to: router)
    }
    return router
}

/// With bearer tokens, `/studio` (which shows every user's documents) only for the users named; 403 otherwise.
struct StudioUsersMiddleware<Context: RequestContext>: RouterMiddleware {
    let users: [String]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let path = request.uri.path
        guard path.utf8.elementsEqual("/studio".utf8) || path.utf8.starts(with: "/studio/".utf8) else {
            return try await next(request, context)
        }
        guard let user = HangarUser.current, users.contains(where: { $0.hasSameBytes(as: user) }) else {
            return Response(
                status: .forbidden, headers: [.contentType: "text/plain; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: "The studio is open to its named users only\n")))
        }
        return try await next(request, context)
    }
}

/// The application over an opened store, the store a service of its group.
private func makeApplication<Store: DocumentStore>(
    _ store: Store, options: PilotsAPIOptions, configuration: PilotsServerConfiguration
) -> Application<RouterResponder<BasicRequestContext>> {
    let host = configuration.host
    let onListening = configuration.onListening
    return Application(
        router: buildRouter(store: store, options: options),
        server: .hangarHTTP1(),
        configuration: ApplicationConfiguration(
            address: .hostname(host, port: configuration.port), serverName: "pilots-server"),
        services: [
            StoreService(store: store),
            SyncAnswersService(server: SyncServer(store: store), logger: configuration.logger),
        ],
        onServerRunning: { channel in await onListening("http://\(host):\(channel.localAddress?.port ?? 0)") },
        logger: configuration.logger)
}
